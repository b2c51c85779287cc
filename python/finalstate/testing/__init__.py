"""Helpers for tests (Python and TypeScript): tiny models built on the spot, never downloaded."""
