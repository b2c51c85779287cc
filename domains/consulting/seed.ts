/**
 * The shared rows every episode starts from: the firm's leadership (the top of every reporting line). Tasks add
 * their employees, engagements, balances, claims and devices.
 */
export const MANAGING_PARTNER = {
  employee_id: 'EMP-000001',
  full_name: 'Helena Marsh',
  email: 'helena.marsh@meridian-partners.example',
  grade: 'partner',
  department: 'Leadership',
  manager_id: null,
  hire_date: '2009-04-01',
  date_of_birth: '1968-02-14',
  salary: 310000,
  home_address: '1 Harbour View, Bristol',
  status: 'active',
};

export const consultingSeed: Record<string, Record<string, unknown>[]> = { employees: [MANAGING_PARTNER] };

export const consultingSequences = {
  ticket: { prefix: 'TCK-', start: 1000 },
  leave: { prefix: 'LR-', start: 5000 },
  expense: { prefix: 'EXP-', start: 7000 },
  grant: { prefix: 'ACC-', start: 300 },
};
