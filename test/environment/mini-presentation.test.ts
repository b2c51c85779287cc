import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import type { ToolDefinition } from '../../environment/domain.js';
import { EpisodeMcpClient } from '../../environment/mcp-client.js';
import { createEpisodeMcpServer } from '../../environment/mcp-server.js';
import type { EpisodeToolExecutor } from '../../environment/tool-executor.js';
import { retail } from '../../domains/retail/index.js';
import { travel } from '../../domains/travel/index.js';

// What an agent is shown of a tool, per profile, through a real MCP server and client. The executor is a FAKE (no
// database): it returns a fixed result, so only the presentation is under test.
const getThing: ToolDefinition = {
  name: 'get_thing',
  description: 'Get a thing with everything about it: a long description for frontier models.',
  miniDescription: 'Get a thing.',
  input: { thing_id: z.string().describe('The thing id, e.g. T-1.') },
  readOnly: true,
  miniResult: (result, { now }) => ({ id: (result as { id: string }).id, year: now.getUTCFullYear() }),
  handler: async () => ({}),
};

async function shown(profile: 'full' | 'mini') {
  const fakeExecutor = {
    episode: {
      domain: { name: 'fixture', version: '1', policy: { full: 'full policy', mini: 'mini policy' } },
      task: { profile },
      clock: new Date('2026-04-05T15:00:00Z'),
    },
    tools: new Map([[getThing.name, getThing]]),
    call: async () => ({
      callIndex: 0,
      isError: false as const,
      result: { id: 'T-1', notes: 'internal detail', created_at: '2026-01-01' },
    }),
  } as unknown as EpisodeToolExecutor;
  const server = createEpisodeMcpServer(fakeExecutor);
  const client = await EpisodeMcpClient.inProcess(server);
  try {
    const [tool] = await client.listTools();
    const result = await client.callTool('get_thing', { thing_id: 'T-1' });
    return { tool: tool!, result };
  } finally {
    await client.close();
    await server.close();
  }
}

test('the mini profile shows the short description, undescribed parameters and the projected result; full shows everything', async () => {
  const mini = await shown('mini');
  assert.equal(mini.tool.description, 'Get a thing.');
  assert.deepEqual((mini.tool.inputSchema as { properties: Record<string, unknown> }).properties, {
    thing_id: { type: 'string' },
  });
  assert.deepEqual(JSON.parse(mini.result.content), { id: 'T-1', year: 2026 });

  const full = await shown('full');
  assert.equal(full.tool.description, getThing.description);
  assert.deepEqual((full.tool.inputSchema as { properties: Record<string, unknown> }).properties, {
    thing_id: { type: 'string', description: 'The thing id, e.g. T-1.' },
  });
  assert.deepEqual(JSON.parse(full.result.content), { id: 'T-1', notes: 'internal detail', created_at: '2026-01-01' });
});

test('every mini tool of the shipped packs has a short description, and the lookups project their results', () => {
  for (const domain of [retail, travel]) {
    for (const name of domain.profileTools.mini) {
      const tool = domain.tools.find((t) => t.name === name)!;
      assert.ok(tool.miniDescription && tool.miniDescription.length <= 60, `${domain.name}.${name}`);
    }
  }
  const order = retail.tools.find((t) => t.name === 'get_order')!.miniResult!(
    {
      order_id: 'ORD-1',
      status: 'shipped',
      customer_tier: 'vip',
      total: 120,
      delivered_at: null,
      placed_at: '2026-03-01T09:00:00Z',
      items: [
        {
          item_id: 'ORD-1-1',
          sku: 'S',
          name: 'n',
          quantity: 2,
          unit_price: 60,
          current_price: 60,
          final_sale: false,
          status: 'ordered',
        },
      ],
      shipment: { status: 'delayed', estimated_delivery: '2026-04-01T00:00:00Z' },
      payments: [],
      refunds: [],
      returns: [],
    },
    { now: new Date('2026-04-05T15:00:00Z') },
  );
  assert.deepEqual(order, {
    order_id: 'ORD-1',
    status: 'shipped',
    tier: 'vip',
    total: 120,
    shipment: { status: 'delayed', days_past_estimate: 4 },
    items: [{ item_id: 'ORD-1-1', unit_price: 60, quantity: 2 }],
  });
  const booking = travel.tools.find((t) => t.name === 'get_booking')!.miniResult!(
    {
      booking_id: 'BKG-1',
      status: 'confirmed',
      total: 300,
      hotel_stays: [
        {
          stay_id: 'BKG-1-H1',
          room_code: 'STD',
          check_in: '2026-04-07',
          nights: 2,
          nightly_rate: 150,
          free_cancel_hours: 48,
          status: 'booked',
        },
      ],
      flight_segments: [
        {
          segment_id: 'BKG-1-F1',
          departs_at: '2026-04-06T10:00:00Z',
          flight_status: 'scheduled',
          fare_type: 'refundable',
          seat: '3A',
          price: 200,
          status: 'ticketed',
        },
      ],
    },
    { now: new Date('2026-04-05T15:00:00Z') },
  );
  assert.deepEqual(booking, {
    booking_id: 'BKG-1',
    status: 'confirmed',
    hotel_stays: [
      {
        stay_id: 'BKG-1-H1',
        room_code: 'STD',
        nights: 2,
        nightly_rate: 150,
        hours_to_check_in: 48,
        free_cancel_hours: 48,
        status: 'booked',
      },
    ],
    flight_segments: [
      {
        segment_id: 'BKG-1-F1',
        hours_to_departure: 19,
        flight_status: 'scheduled',
        fare_type: 'refundable',
        price: 200,
        status: 'ticketed',
      },
    ],
  });
});
