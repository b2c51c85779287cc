/** The bank's departments, systems, role entitlements, software catalogue and the approvers every episode starts from. */

export const DEPARTMENTS = [
  { department_id: 'DEP-ENG', name: 'Engineering' },
  { department_id: 'DEP-DATA', name: 'Data & Analytics' },
  { department_id: 'DEP-OPS', name: 'Customer Operations' },
  { department_id: 'DEP-FIN', name: 'Finance' },
  { department_id: 'DEP-PPL', name: 'People' },
  { department_id: 'DEP-SEC', name: 'Security' },
] as const;

/** The security lead approves every admin right. */
export const SECURITY_LEAD = {
  employee_id: 'EMP-SEC-1',
  full_name: 'Priya Raman',
  email: 'priya.raman@ledgerly.example',
  employee_number: 'E-0001',
  department_id: 'DEP-SEC',
  role: 'security_lead',
};

const OWNERS = [
  {
    employee_id: 'EMP-OWN-1',
    full_name: 'Tomas Berg',
    email: 'tomas.berg@ledgerly.example',
    employee_number: 'E-0002',
    department_id: 'DEP-ENG',
    role: 'data_owner',
  },
  {
    employee_id: 'EMP-OWN-2',
    full_name: 'Grace Okafor',
    email: 'grace.okafor@ledgerly.example',
    employee_number: 'E-0003',
    department_id: 'DEP-DATA',
    role: 'data_owner',
  },
  {
    employee_id: 'EMP-OWN-3',
    full_name: 'Hugo Lindqvist',
    email: 'hugo.lindqvist@ledgerly.example',
    employee_number: 'E-0004',
    department_id: 'DEP-FIN',
    role: 'data_owner',
  },
  {
    employee_id: 'EMP-OWN-4',
    full_name: 'Amara Diallo',
    email: 'amara.diallo@ledgerly.example',
    employee_number: 'E-0005',
    department_id: 'DEP-PPL',
    role: 'data_owner',
  },
];

export type Sensitivity = 'standard' | 'confidential' | 'production';
export interface System {
  system_id: string;
  name: string;
  sensitivity: Sensitivity;
  data_owner_id: string;
}

export const SYSTEMS: readonly System[] = [
  { system_id: 'SYS-CRM', name: 'Customer CRM', sensitivity: 'standard', data_owner_id: 'EMP-OWN-1' },
  { system_id: 'SYS-GIT', name: 'Source code hosting', sensitivity: 'standard', data_owner_id: 'EMP-OWN-1' },
  {
    system_id: 'SYS-LEDGER',
    name: 'Production ledger database',
    sensitivity: 'production',
    data_owner_id: 'EMP-OWN-3',
  },
  {
    system_id: 'SYS-PAYOPS',
    name: 'Payments operations console',
    sensitivity: 'production',
    data_owner_id: 'EMP-OWN-3',
  },
  { system_id: 'SYS-AWS', name: 'Cloud console', sensitivity: 'production', data_owner_id: 'EMP-OWN-1' },
  { system_id: 'SYS-DWH', name: 'Data warehouse', sensitivity: 'confidential', data_owner_id: 'EMP-OWN-2' },
  { system_id: 'SYS-HRIS', name: 'HR information system', sensitivity: 'confidential', data_owner_id: 'EMP-OWN-4' },
];

export type Level = 'read' | 'write' | 'admin';
export type Role =
  'software_engineer' | 'site_reliability' | 'data_analyst' | 'support_agent' | 'finance_analyst' | 'hr_partner';

/** Least privilege: the most each role may hold on each system; a system not listed is not needed by the role at all. */
export const ENTITLEMENTS: Record<Role, Record<string, Level>> = {
  software_engineer: { 'SYS-GIT': 'write', 'SYS-AWS': 'read', 'SYS-LEDGER': 'read', 'SYS-CRM': 'read' },
  site_reliability: { 'SYS-GIT': 'admin', 'SYS-AWS': 'admin', 'SYS-LEDGER': 'write', 'SYS-PAYOPS': 'read' },
  data_analyst: { 'SYS-DWH': 'write', 'SYS-LEDGER': 'read', 'SYS-CRM': 'read' },
  support_agent: { 'SYS-CRM': 'write', 'SYS-PAYOPS': 'read' },
  finance_analyst: { 'SYS-DWH': 'read', 'SYS-PAYOPS': 'write', 'SYS-LEDGER': 'read' },
  hr_partner: { 'SYS-HRIS': 'write', 'SYS-CRM': 'read' },
};

export const ROLE_DEPARTMENT: Record<Role, string> = {
  software_engineer: 'DEP-ENG',
  site_reliability: 'DEP-ENG',
  data_analyst: 'DEP-DATA',
  support_agent: 'DEP-OPS',
  finance_analyst: 'DEP-FIN',
  hr_partner: 'DEP-PPL',
};

export interface Product {
  product_id: string;
  name: string;
  seats_total: number;
  monthly_cost: number;
  allowed_departments: string[];
}

export const PRODUCTS: readonly Product[] = [
  {
    product_id: 'SW-IDE',
    monthly_cost: 59,
    name: 'IntelliJ IDEA Ultimate',
    seats_total: 400,
    allowed_departments: ['DEP-ENG'],
  },
  {
    product_id: 'SW-TABLEAU',
    monthly_cost: 75,
    name: 'Tableau Creator',
    seats_total: 120,
    allowed_departments: ['DEP-DATA', 'DEP-FIN'],
  },
  {
    product_id: 'SW-FIGMA',
    monthly_cost: 45,
    name: 'Figma Professional',
    seats_total: 80,
    allowed_departments: ['DEP-ENG', 'DEP-OPS'],
  },
  {
    product_id: 'SW-ZENDESK',
    monthly_cost: 69,
    name: 'Zendesk agent seat',
    seats_total: 300,
    allowed_departments: ['DEP-OPS'],
  },
  {
    product_id: 'SW-WORKDAY',
    monthly_cost: 38,
    name: 'Workday HR partner',
    seats_total: 40,
    allowed_departments: ['DEP-PPL'],
  },
  {
    product_id: 'SW-VISIO',
    monthly_cost: 15,
    name: 'Microsoft Visio',
    seats_total: 60,
    allowed_departments: ['DEP-FIN', 'DEP-ENG'],
  },
];

const staff = (e: typeof SECURITY_LEAD) => ({
  ...e,
  manager_id: null,
  status: 'active',
  mfa_enrolled: true,
  mfa_reset_at: null,
});

export const neobankSeed: Record<string, Record<string, unknown>[]> = {
  departments: DEPARTMENTS.map((d) => ({ ...d })),
  employees: [SECURITY_LEAD, ...OWNERS].map(staff),
  systems: SYSTEMS.map((s) => ({ ...s })),
  role_entitlements: Object.entries(ENTITLEMENTS).flatMap(([role, systems]) =>
    Object.entries(systems).map(([system_id, max_level]) => ({ role, system_id, max_level })),
  ),
  software_products: PRODUCTS.map(({ product_id, name, seats_total, monthly_cost }) => ({
    product_id,
    name,
    seats_total,
    monthly_cost,
  })),
  software_entitlements: PRODUCTS.flatMap((p) =>
    p.allowed_departments.map((department_id) => ({ product_id: p.product_id, department_id })),
  ),
};

export const neobankSequences = {
  ticket: { prefix: 'TCK-', start: 1000 },
  request: { prefix: 'REQ-', start: 3000 },
  grant: { prefix: 'GRT-', start: 5000 },
  incident: { prefix: 'INC-', start: 7000 },
  licence: { prefix: 'LIC-', start: 9000 },
};
