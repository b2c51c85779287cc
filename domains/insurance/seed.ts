/** The adjusters and repair shops every episode starts from; tasks add their policyholders, policies and claims. */

export interface RepairShop {
  shop_id: string;
  name: string;
  city: string;
  network: boolean;
}

export const CITIES = ['Portland', 'Austin', 'Denver', 'Boston', 'Madison', 'Raleigh'] as const;

/** One network shop (paid directly) and one independent shop per city. */
export const REPAIR_SHOPS: readonly RepairShop[] = CITIES.flatMap((city, i) => [
  { shop_id: `SHOP-${i + 1}1`, name: `${city} Collision Center`, city, network: true },
  { shop_id: `SHOP-${i + 1}2`, name: `Main Street Garage ${city}`, city, network: false },
]);

/** The claims desk's own adjuster: the agent acts under this adjuster's authority limit. */
export const DESK_ADJUSTER = {
  adjuster_id: 'ADJ-DESK',
  full_name: 'Claims desk (virtual agent)',
  authority_limit: 2500,
};

export const insuranceSeed: Record<string, Record<string, unknown>[]> = {
  adjusters: [
    DESK_ADJUSTER,
    { adjuster_id: 'ADJ-201', full_name: 'Rosa Mendez', authority_limit: 10000 },
    { adjuster_id: 'ADJ-202', full_name: 'Victor Hale', authority_limit: 25000 },
  ],
  repair_shops: REPAIR_SHOPS.map((s) => ({ ...s })),
};

export const insuranceSequences = {
  ticket: { prefix: 'TCK-', start: 1000 },
  claim: { prefix: 'CLM-', start: 5000 },
  note: { prefix: 'NOTE-', start: 1 },
  payment: { prefix: 'PAY-', start: 7000 },
  driver: { prefix: 'DRV-', start: 900 },
};
