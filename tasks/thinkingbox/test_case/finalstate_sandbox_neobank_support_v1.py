# Finalstate training tasks for the ThinkingBox scenario `sandbox_neobank_support_v1`.
# Written for the finalstate project (not from ThinkingBox-Bench). Graded like the
# business-ops servers grade: the final database hash must equal the hash of the
# golden state (seed + data_patch + the golden tool calls below).

from thinkingbox.common import Judge, TestContext

"""!
scenario: sandbox_neobank_support_v1
"""


def assert_final_state_matches_golden(x: TestContext, server: str):
    fx = x.effects[server]
    assert "result_db_hash" in fx, f"get_effects failed: {str(fx)[:500]}"
    assert fx["result_db_hash"] == fx["golden_db_hash"], (
        f"final state differs from the golden state: {fx['diff']}"
    )


def test_allocate_looker_license(x: TestContext, judge: Judge):
    """!
    query: Hi, I need a Looker license so I can build the product usage dashboards for my team.
    user_context: You are Priya Nair (priya.nair@vdb.com), Data Analyst in Product & Engineering, NYC office.
      You need a Looker license to build product usage dashboards for your team. You do not have a Looker
      license today. There is no deadline. You have no other requests. Confirm if asked.
    max_user_sim_turns: 6
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (License Management): For software requiring licenses (Tableau Creator, Figma, specialized
      tools named by requester):

      Step 1. Determine the license pool type: unlimited (no limit), standard/enterprise (limited pool shared
      across the company), individual (requires individual purchase for each user). If the software is not
      found in license inventory -> Deny.

      Step 2. unlimited -> allocate. standard/enterprise -> check availability: null = unlimited -> allocate;
      greater than zero -> allocate; zero -> inform the employee and offer the waitlist (agrees: ticket pending,
      resolution backlogged, tag license_waitlist; else deny).

      individual (requires purchase): approval depends on the annual cost: $500 or less -> Manager approval
      only; more than $500 -> Manager approval and Director approval. Create approval requests with type license_purchase
      and set the ticket to pending.

      '
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: priya.nair@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'priya.nair@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '10'
          - tool: license_management_api_check_license_type
            parameters:
              software_name: Looker
          - tool: license_management_api_check_availability
            parameters:
              software_name: Looker
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Looker license request
                description: Looker license request
                status: open
                priority: normal
                type: problem
                requester_id: '10'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: license_management_api_allocate_license
            parameters:
              software_name: Looker
              email: priya.nair@vdb.com
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: provisioned
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_own_department_bi_dashboards(x: TestContext, judge: Judge):
    """!
    query: I can't open the campaign performance dashboard in our BI tool. Can you give me access to the marketing
      dashboards?
    user_context: You are Liam Brooks (liam.brooks@vdb.com), Growth Marketing Specialist in the Marketing
      department, SF office. You need to view the Marketing campaign performance dashboard. You understand
      access is given to the whole set of Marketing dashboards. You have no other requests.
    max_user_sim_turns: 6
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (BI Dashboard Access): Dashboard access is managed on set level by adding the employee
      to the Okta Dashboard Access Group: bi_finance_viewers (Finance & Accounting, financial_data), bi_executive
      (Executive & Leadership, confidential), bi_product_analytics (Product & Engineering, confidential),
      bi_operations (IT Operations, confidential), bi_compliance (Compliance & Risk, compliance_restricted),
      bi_marketing_viewers (Marketing, confidential).

      Employees have default access to the BI dashboards of their own department (no approval needed). Access
      to other departments'' dashboards needs approval by sensitivity level (confidential -> Manager; financial_data
      -> Head of Finance & Accounting; compliance_restricted -> Head of Compliance; Executive & Leadership
      auto-approved except compliance_restricted). If the employee already belongs to the group -> inform
      them, treat as informational (question).

      '
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: liam.brooks@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'liam.brooks@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '8'
          - tool: okta_api_get_user_groups
            parameters:
              email: liam.brooks@vdb.com
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Marketing BI dashboards access
                description: Marketing BI dashboards access
                status: open
                priority: normal
                type: problem
                requester_id: '8'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: okta_api_add_to_group
            parameters:
              email: liam.brooks@vdb.com
              group_name: bi_marketing_viewers
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: provisioned
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_okta_lockout_escalate_it_ops(x: TestContext, judge: Judge):
    """!
    query: I'm locked out of Okta. I typed my password wrong too many times this morning and now it says my
      account is locked.
    user_context: You are Ryan Cole (ryan.cole@vdb.com), Account Executive in Sales, NYC office. This morning
      you mistyped your Okta password several times and your account got locked. You know your password, you
      did not click any suspicious link and nothing suggests your account was compromised. You just want to
      get back in.
    max_user_sim_turns: 6
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Password, MFA & Account Access): Employee forgot Okta password -> recommend Okta self-service
      reset (okta.vdb.com/reset); if self-service fails, trigger password reset. Employee locked out (too
      many failed attempts) -> Escalate to IT Operations. Password expired -> recommend self-service password
      change. Account lockout: if failed password attempts -> treat as ''Employee locked out''; if suspicious
      activity -> escalate to IT Security, do not unlock.

      For a lockout caused by failed password attempts IT Support does not unlock the account or run identity
      verification itself; it escalates: owner it_ops_team, status pending, tag escalated, resolution_category
      escalated_it_ops.

      '
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: ryan.cole@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'ryan.cole@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '12'
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Okta account locked out after failed password attempts
                description: Okta account locked out after failed password attempts
                status: open
                priority: normal
                type: problem
                requester_id: '12'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: pending
                owner: it_ops_team
                tags: escalated
                resolution_category: escalated_it_ops
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_laptop_refresh_old_device(x: TestContext, judge: Judge):
    """!
    query: My laptop is over four years old and really slow now. Can I get an upgrade?
    user_context: You are Owen Reyes (owen.reyes@vdb.com), Senior Product Designer in Product & Engineering,
      Austin office. Your company laptop is a Dell Latitude 5420 (asset VDB-HW-60101) bought in August 2021.
      It still works but it is slow and too old. You have no brand preference and you are not asking for a
      Mac; a standard laptop is fine. You will hand in the old laptop. Confirm when asked.
    max_user_sim_turns: 8
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Hardware Provision and Replacement): Replacement reasons: damage (dropped, cracked,
      spilled, lost, stolen...), hardware_failure (not turning on, won''t boot, no display, won''t charge...),
      refresh (upgrade, faster, too old). First matching category wins; no keyword -> refresh.

      Laptop refresh: device_age_months = FLOOR((current_date - purchase_date) / 30). Tier: Premium only if
      the employee asks for MacBook/Mac/premium or is Executive & Leadership; else Standard. Refresh with
      device age 36+ months -> auto-approve (no approval, no business justification); under 36 months -> business
      justification and Manager approval.

      Inventory: check inventory at the employee''s office location (sf, nyc, austin; remote_ship for remote
      employees). If a model of the category is available -> assign from stock, else create a procurement
      order. When replacing an assigned device, call retire_device for the old device.

      Model choice with no preference: the first model in list order that has an available asset. Laptop Standard
      list: Lenovo ThinkBook 14+, Dell Latitude 5440. Do not assign models that are not listed.

      Set the ticket asset_id to the newly assigned device.

      '
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: owen.reyes@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'owen.reyes@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '13'
          - tool: asset_management_api_get_employee_devices
            parameters:
              email: owen.reyes@vdb.com
          - tool: asset_management_api_get_device_details
            parameters:
              asset_id: VDB-HW-60101
          - tool: asset_management_api_check_inventory
            parameters:
              device_type: laptop_standard
              warehouse_location: austin
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Laptop refresh - Dell Latitude 5420 over 36 months old
                description: Laptop refresh - Dell Latitude 5420 over 36 months old
                status: open
                priority: normal
                type: problem
                requester_id: '13'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: asset_management_api_assign_device
            parameters:
              asset_id: VDB-HW-60103
              email: owen.reyes@vdb.com
          - tool: asset_management_api_retire_device
            parameters:
              asset_id: VDB-HW-60101
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: provisioned
                asset_id: VDB-HW-60103
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_actimize_access_manager_and_security_approval(x: TestContext, judge: Judge):
    """!
    query: I need access to Actimize to review the flagged transactions tied to our monthly reconciliation
      breaks.
    user_context: 'You are Mei Tanaka (mei.tanaka@vdb.com), Financial Analyst in Finance & Accounting, SF
      office. You need Actimize user access. Business justification: you review AML alerts that are linked
      to monthly reconciliation breaks and currently have to ask Compliance for screenshots. It is ongoing
      work, not a project with an end date, and there is no deadline or investigation. You do not have Actimize
      access today.'
    max_user_sim_turns: 8
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Access to Tools): Sensitivity groups - Group 1: Slack (member), Confluence (user), Zoom
      (user), Jira (user), Workday HRIS (standard), VPN (standard_employee). Group 2: Salesforce CRM (user),
      Tableau (viewer), GitHub (read_only), Quantivate (user). Group 3: Admin Panel (read_only), Customer
      PII fields (read_only), Snowflake depersonalized (analyst), GitHub (write), Actimize (user), Workday
      HRIS (elevated). Group 4: Admin Panel (write non-PII only), Snowflake raw replica (analyst), Customer
      PII fields (write). Group 5: AWS Production (user), Production database (read_only), VPN (engineer_prod),
      Splunk SIEM (user).

      Business justification is required for Group 4 and Group 5. Before provisioning, check the employee''s
      current access; same level already held -> informational (question).

      Contractors: Group 4 and Group 5 access cannot be provided -> Deny; Group 2 and 3 access must be temporary.
      On leave: Group 2-5 cannot be granted -> Deny and notify the manager. Departing: Group 2-5 -> Deny.

      Role-based rules: Actimize (user) - Default: Compliance & Risk; Forbidden: HR, Sales/BD; May obtain:
      all other. Default -> provide access; May obtain -> Approval Matrix; Forbidden -> Deny.

      Approval Matrix (May obtain only): Group 2 - IC (Level 1-4): Manager; Level 5+: auto-approved. Group
      3 - IC: Manager + IT Security; Manager/Director (Level 5-7): IT Security; Executive (8+): auto-approved.
      Group 4/5 - Level 1-5: Director + IT Security; Level 6+: IT Security. Create one approval request per
      required approver (request_type access_request). The IT Security approver is returned by the approver
      lookup with required_approver it_security.

      '
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: mei.tanaka@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'mei.tanaka@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '14'
          - tool: okta_api_check_access
            parameters:
              email: mei.tanaka@vdb.com
              app_name: Actimize
          - tool: workday_api_get_manager_chain
            parameters:
              email: mei.tanaka@vdb.com
          - tool: approver_lookup_api_get_contact_details
            parameters:
              email: chris.johnson@vdb.com
          - tool: approver_lookup_api_get_approver_contact
            parameters:
              required_approver: it_security
          - tool: approver_lookup_api_get_contact_details
            parameters:
              email: amanda.lee@vdb.com
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Actimize (user) access request
                description: Actimize (user) access request
                status: open
                priority: normal
                type: problem
                requester_id: '14'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: approval_api_create_request
            parameters:
              request_type: access_request
              requester_email: mei.tanaka@vdb.com
              approver_email: chris.johnson@vdb.com
              details: Actimize (user) access for Mei Tanaka - review AML alerts linked to monthly reconciliation
                breaks. Ticket 6.
              urgency: standard
              ticket_id: '6'
          - tool: approval_api_create_request
            parameters:
              request_type: access_request
              requester_email: mei.tanaka@vdb.com
              approver_email: amanda.lee@vdb.com
              details: Actimize (user) access for Mei Tanaka - review AML alerts linked to monthly reconciliation
                breaks. Ticket 6.
              urgency: standard
              ticket_id: '6'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: pending
                approval_required: 'yes'
                approval_status: pending
                approver_id: WD-671392,WD-753918
                approval_request_ids: APR-00000007,APR-00000008
                business_justification: Review AML alerts linked to monthly reconciliation breaks
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_adobe_license_purchase_two_approvals(x: TestContext, judge: Judge):
    """!
    query: Hi, I need an Adobe Creative Cloud license to produce the assets for the new brand campaign.
    user_context: You are Zoe Carter (zoe.carter@vdb.com), Brand Designer in the Marketing department, SF
      office. You need an Adobe Creative Cloud license to produce the assets for the new brand campaign. There
      is no hard deadline. You accept that approvals are needed and will wait for them.
    max_user_sim_turns: 8
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (License Management): For software requiring licenses (Tableau Creator, Figma, specialized
      tools named by requester):

      Step 1. Determine the license pool type: unlimited (no limit), standard/enterprise (limited pool shared
      across the company), individual (requires individual purchase for each user). If the software is not
      found in license inventory -> Deny.

      Step 2. unlimited -> allocate. standard/enterprise -> check availability: null = unlimited -> allocate;
      greater than zero -> allocate; zero -> inform the employee and offer the waitlist (agrees: ticket pending,
      resolution backlogged, tag license_waitlist; else deny).

      individual (requires purchase): approval depends on the annual cost: $500 or less -> Manager approval
      only; more than $500 -> Manager approval and Director approval. Create approval requests with type license_purchase
      and set the ticket to pending.

      Director approval = the employee''s skip-level manager (first manager at Level 6+ in the management
      chain).

      '
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: zoe.carter@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'zoe.carter@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '9'
          - tool: license_management_api_check_license_type
            parameters:
              software_name: Adobe Creative Cloud
          - tool: license_management_api_check_availability
            parameters:
              software_name: Adobe Creative Cloud
          - tool: workday_api_get_manager_chain
            parameters:
              email: zoe.carter@vdb.com
          - tool: approver_lookup_api_get_contact_details
            parameters:
              email: nina.patel@vdb.com
          - tool: approver_lookup_api_get_contact_details
            parameters:
              email: grace.holloway@vdb.com
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Adobe Creative Cloud license purchase
                description: Adobe Creative Cloud license purchase
                status: open
                priority: normal
                type: problem
                requester_id: '9'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: approval_api_create_request
            parameters:
              request_type: license_purchase
              requester_email: zoe.carter@vdb.com
              approver_email: nina.patel@vdb.com
              details: Adobe Creative Cloud individual license ($600/year) for brand campaign assets. Ticket
                6.
              urgency: standard
              ticket_id: '6'
          - tool: approval_api_create_request
            parameters:
              request_type: license_purchase
              requester_email: zoe.carter@vdb.com
              approver_email: grace.holloway@vdb.com
              details: Adobe Creative Cloud individual license ($600/year) for brand campaign assets. Ticket
                6.
              urgency: standard
              ticket_id: '6'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: pending
                approval_required: 'yes'
                approval_status: pending
                approver_id: WD-610001,WD-610002
                approval_request_ids: APR-00000007,APR-00000008
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_sev1_aws_production_temp_access(x: TestContext, judge: Judge):
    """!
    query: 'We have a SEV1: card payments are failing for all customers (incident SEC-61005101). I''m on call
      and need AWS Production access right now to debug the payment service.'
    user_context: 'You are Jordan Blake (jordan.blake@vdb.com), Backend Engineer in Product & Engineering,
      SF office, on call. Incident SEC-61005101 (SEV1): card payment processing is failing for all customers.
      You need AWS Production (user) access. Business justification: on-call engineer debugging the payment
      service outage during SEV1 SEC-61005101. You only need it for the incident. You do not have AWS Production
      access today. Your manager is Sarah Jones.'
    max_user_sim_turns: 8
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Access to Tools): Sensitivity groups - Group 1: Slack (member), Confluence (user), Zoom
      (user), Jira (user), Workday HRIS (standard), VPN (standard_employee). Group 2: Salesforce CRM (user),
      Tableau (viewer), GitHub (read_only), Quantivate (user). Group 3: Admin Panel (read_only), Customer
      PII fields (read_only), Snowflake depersonalized (analyst), GitHub (write), Actimize (user), Workday
      HRIS (elevated). Group 4: Admin Panel (write non-PII only), Snowflake raw replica (analyst), Customer
      PII fields (write). Group 5: AWS Production (user), Production database (read_only), VPN (engineer_prod),
      Splunk SIEM (user).

      Business justification is required for Group 4 and Group 5. Before provisioning, check the employee''s
      current access; same level already held -> informational (question).

      Contractors: Group 4 and Group 5 access cannot be provided -> Deny; Group 2 and 3 access must be temporary.
      On leave: Group 2-5 cannot be granted -> Deny and notify the manager. Departing: Group 2-5 -> Deny.

      Role-based rules: Production Infrastructure (Group 5) except Splunk SIEM - May obtain: Compliance &
      Risk, IT Operations, IT Security; Temp only (SEV1/2): Product & Engineering -> Security and Incident
      Response; Forbidden: all other.

      Policy excerpt (Security and Incident Response): A production access request during an active incident
      is recorded as a problem (access request) ticket; the incident context goes in incident_severity and
      customer_impact. Temp only (SEV1/2) employees get access only during an active SEV1 or SEV2 incident;
      otherwise deny. Always check that the incident is still active before provisioning.

      SEV1: grant Group 5 access (except Splunk SIEM) immediately without waiting for approval; after granting,
      send post-facto notifications to the Manager and the IT Security team. Not for contractors.

      All incident access is temporary for 24 hours (access_expiry_date = current time + 24h).

      Notification details: send one email to the employee''s manager and one to the IT Security contact (approver
      lookup, required_approver it_security), both with notification_type post_facto_manager_alert and email
      priority equal to the ticket priority. Write expiry datetimes as ISO 8601 UTC with a Z suffix (e.g.
      2025-10-02T13:00:00Z) and provision temporary access with is_temporary true and the same access_expiry_date.

      '
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: jordan.blake@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jordan.blake@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '15'
          - tool: security_api_verify_incident
            parameters: {}
          - tool: okta_api_check_access
            parameters:
              email: jordan.blake@vdb.com
              app_name: AWS Production
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: SEV1 SEC-61005101 - temporary AWS Production access
                description: SEV1 SEC-61005101 - temporary AWS Production access
                status: open
                priority: urgent
                type: problem
                requester_id: '15'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
                incident_severity: sev1_critical
                customer_impact: yes_active
                business_justification: On-call engineer debugging payment service outage during SEV1 SEC-61005101
          - tool: okta_api_provision_access
            parameters:
              email: jordan.blake@vdb.com
              app_name: AWS Production
              access_level: user
              is_temporary: true
              access_expiry_date: '2025-10-02T13:00:00Z'
          - tool: approver_lookup_api_get_approver_contact
            parameters:
              required_approver: it_security
          - tool: email_notification_api_send_notification
            parameters:
              recipient_email: sarah.jones@vdb.com
              notification_type: post_facto_manager_alert
              subject: 'Post-facto: SEV1 AWS Production access granted to Jordan Blake'
              body: Jordan Blake was granted temporary AWS Production (user) access for 24 hours (until 2025-10-02T13:00:00Z)
                for SEV1 incident SEC-61005101.
              ticket_id: '6'
              priority: urgent
          - tool: email_notification_api_send_notification
            parameters:
              recipient_email: amanda.lee@vdb.com
              notification_type: post_facto_manager_alert
              subject: 'Post-facto: SEV1 AWS Production access granted to Jordan Blake'
              body: Jordan Blake was granted temporary AWS Production (user) access for 24 hours (until 2025-10-02T13:00:00Z)
                for SEV1 incident SEC-61005101.
              ticket_id: '6'
              priority: urgent
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: provisioned
                tags: production_access,temporary_access
                access_expiry_date: '2025-10-02T13:00:00Z'
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_compromised_password_containment(x: TestContext, judge: Judge):
    """!
    query: I think my password has been compromised. I entered it on a page that looked like our Okta login
      from an email link, and just now I got an MFA push I didn't trigger.
    user_context: You are Ethan Wright (ethan.wright@vdb.com), Senior Accountant in Finance & Accounting,
      SF office. An hour ago you entered your Okta password on a page reached from an email link that looked
      like the Okta login; a few minutes ago you received an MFA push you did not trigger (you denied it).
      Only your own account is affected as far as you know. Your manager is Chris Johnson; if told a verification
      email was sent to him, say he has confirmed it. You would prefer an SMS code because it is faster, but
      you accept the method the agent says is required.
    max_user_sim_turns: 10
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Password, MFA & Account Access): Identity verification - IT Security, IT Operations,
      Product & Engineering, Compliance & Risk, HR, Finance & Accounting: manager email confirmation (video
      call only if the manager confirmation cannot be obtained). Executive & Leadership: EA/admin assistant
      email confirmation. All other employees: employee email confirmation (SMS only if email is not possible).
      Do not offer a choice of method and do not switch because the employee prefers another method.

      Suspected compromised password: 1. Perform identity verification per the rule above. 2. Invalidate all
      active sessions for the user (invalidate_all_sessions). 3. Initiate password reset. 4. Notify IT Security
      (email). 5. Resolve the ticket as provisioned after completing the immediate actions; formal escalation
      (changing owner, setting pending) is not required. A suspected compromised password for a single employee
      with no confirmed breach or broader impact is classified as SEV4.

      Notification details: the IT Security email goes to the IT Security contact returned by the approver
      lookup (required_approver it_security), with notification_type escalation_notice and email priority
      equal to the ticket priority.

      '
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: ethan.wright@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'ethan.wright@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '16'
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Suspected compromised Okta password - phishing
                description: Suspected compromised Okta password - phishing
                status: open
                priority: urgent
                type: incident
                requester_id: '16'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
                incident_severity: sev4_low
                customer_impact: no_impact
          - tool: okta_security_api_execute_action
            parameters:
              email: ethan.wright@vdb.com
              operation: send_verification_manager
              ticket_id: '6'
          - tool: okta_security_api_execute_action
            parameters:
              email: ethan.wright@vdb.com
              operation: invalidate_all_sessions
              ticket_id: '6'
          - tool: okta_security_api_execute_action
            parameters:
              email: ethan.wright@vdb.com
              operation: force_password_reset
              ticket_id: '6'
          - tool: approver_lookup_api_get_approver_contact
            parameters:
              required_approver: it_security
          - tool: email_notification_api_send_notification
            parameters:
              recipient_email: amanda.lee@vdb.com
              notification_type: escalation_notice
              subject: Suspected compromised password - Ethan Wright
              body: Ethan Wright reported entering his Okta password on a phishing page and an unexpected
                MFA push. Identity verified via manager, all sessions invalidated, password reset initiated.
              ticket_id: '6'
              priority: urgent
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: provisioned
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")


def test_contractor_admin_panel_write_denied(x: TestContext, judge: Judge):
    """!
    query: Hi, I need write access to the Admin Panel, the non-PII write level, so I can update customer notification
      preferences myself instead of escalating to Tier 2. Maria said she's fine with it.
    user_context: You are Sam Rivera (sam.rivera@vdb.com), Support Agent in Customer Support, Austin office.
      You are a contractor (contract ends 2026-03-31). You want Admin Panel (write non-PII only) access to
      update customer notification preferences without escalating to Tier 2. Your manager Maria Garcia said
      she is fine with it. If the agent says it cannot be granted, accept it politely and end the conversation;
      you have no other requests.
    max_user_sim_turns: 6
    bot_instructions: 'Task notes (the policy knowledge base search is unavailable in this session; the relevant
      policy text is quoted below): pass the Zendesk ticket ID as ticket_id to every tool that accepts one.
      Send email notifications only where a policy step below requires one. Do not create ticket comments.

      Policy excerpt (Access to Tools): Sensitivity groups - Group 1: Slack (member), Confluence (user), Zoom
      (user), Jira (user), Workday HRIS (standard), VPN (standard_employee). Group 2: Salesforce CRM (user),
      Tableau (viewer), GitHub (read_only), Quantivate (user). Group 3: Admin Panel (read_only), Customer
      PII fields (read_only), Snowflake depersonalized (analyst), GitHub (write), Actimize (user), Workday
      HRIS (elevated). Group 4: Admin Panel (write non-PII only), Snowflake raw replica (analyst), Customer
      PII fields (write). Group 5: AWS Production (user), Production database (read_only), VPN (engineer_prod),
      Splunk SIEM (user).

      Business justification is required for Group 4 and Group 5. Before provisioning, check the employee''s
      current access; same level already held -> informational (question).

      Contractors: Group 4 and Group 5 access cannot be provided -> Deny; Group 2 and 3 access must be temporary.
      On leave: Group 2-5 cannot be granted -> Deny and notify the manager. Departing: Group 2-5 -> Deny.

      Role-based rules: Admin Panel (write non-PII only) - Default: Customer Support Tier 2; May obtain: Customer
      Support Tier 1, Compliance & Risk, IT Operations; Forbidden: all other. Customer Support tier: role
      containing Tier 2, Lead, Senior, Head or Manager is Tier 2+, every other Customer Support role is Tier
      1.

      '
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_neobank_support_v1:
        data_patch:
          sandbox_neobank_support_main_models_employees:
          - id: WD-610001
            email: nina.patel@vdb.com
            full_name: Nina Patel
            level: 5
            department: marketing
            role: Marketing Manager
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610002
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610002
            email: grace.holloway@vdb.com
            full_name: Grace Holloway
            level: 7
            department: marketing
            role: Marketing Director
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610003
            email: liam.brooks@vdb.com
            full_name: Liam Brooks
            level: 3
            department: marketing
            role: Growth Marketing Specialist
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610004
            email: zoe.carter@vdb.com
            full_name: Zoe Carter
            level: 3
            department: marketing
            role: Brand Designer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610001
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610011
            email: priya.nair@vdb.com
            full_name: Priya Nair
            level: 3
            department: product_engineering
            role: Data Analyst
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610020
            email: helen.park@vdb.com
            full_name: Helen Park
            level: 5
            department: sales
            role: Sales Manager
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-294817
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610021
            email: ryan.cole@vdb.com
            full_name: Ryan Cole
            level: 3
            department: sales
            role: Account Executive
            office_location: nyc
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-610020
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610031
            email: owen.reyes@vdb.com
            full_name: Owen Reyes
            level: 4
            department: product_engineering
            role: Senior Product Designer
            office_location: austin
            start_date: '2021-08-02T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610041
            email: mei.tanaka@vdb.com
            full_name: Mei Tanaka
            level: 3
            department: finance_accounting
            role: Financial Analyst
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610051
            email: jordan.blake@vdb.com
            full_name: Jordan Blake
            level: 3
            department: product_engineering
            role: Backend Engineer
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-681453
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610061
            email: ethan.wright@vdb.com
            full_name: Ethan Wright
            level: 4
            department: finance_accounting
            role: Senior Accountant
            office_location: sf
            start_date: '2022-03-01T00:00:00Z'
            manager_id: WD-671392
            employment_status: active
            is_contractor: false
            remote_delivery_address: null
            contract_end_date: null
          - id: WD-610071
            email: sam.rivera@vdb.com
            full_name: Sam Rivera
            level: 2
            department: customer_support
            role: Support Agent
            office_location: austin
            start_date: '2025-04-01T00:00:00Z'
            manager_id: WD-739154
            employment_status: active
            is_contractor: true
            remote_delivery_address: null
            contract_end_date: '2026-03-31T00:00:00Z'
          zendesk_users:
          - id: '6'
            name: Nina Patel
            email: nina.patel@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Grace Holloway
            email: grace.holloway@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Liam Brooks
            email: liam.brooks@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Zoe Carter
            email: zoe.carter@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Priya Nair
            email: priya.nair@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Helen Park
            email: helen.park@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Ryan Cole
            email: ryan.cole@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '13'
            name: Owen Reyes
            email: owen.reyes@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '14'
            name: Mei Tanaka
            email: mei.tanaka@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '15'
            name: Jordan Blake
            email: jordan.blake@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '16'
            name: Ethan Wright
            email: ethan.wright@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '17'
            name: Sam Rivera
            email: sam.rivera@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '18'
            name: Sarah Jones
            email: sarah.jones@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '19'
            name: Chris Johnson
            email: chris.johnson@vdb.com
            role: end-user
            organization_id: '1'
            phone: null
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          sandbox_neobank_support_main_models_hardware_assets:
          - id: VDB-HW-60101
            device_type: laptop_standard
            device_model: Dell Latitude 5420
            purchase_date: '2021-08-10T00:00:00Z'
            warehouse_location: austin
            condition: fair
            is_assigned: true
          - id: VDB-HW-60102
            device_type: laptop_standard
            device_model: Dell Latitude 5440
            purchase_date: '2025-07-15T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          - id: VDB-HW-60103
            device_type: laptop_standard
            device_model: Lenovo ThinkBook 14+
            purchase_date: '2025-08-20T00:00:00Z'
            warehouse_location: austin
            condition: new
            is_assigned: false
          sandbox_neobank_support_main_models_asset_assignments:
          - id: ASN-61010100
            asset_id: VDB-HW-60101
            employee_id: WD-610031
            assigned_at: '2021-08-12T10:00:00Z'
            assigned_by: system
            is_active: true
            returned_at: null
          sandbox_neobank_support_main_models_security_incidents:
          - id: SEC-61005101
            employee_id: WD-610051
            severity: SEV1
            incident_type: payment_processing_failure
            description: Card payment processing failing for all customers - payment service returning 502
            status: open
            is_active: true
            reported_at: '2025-10-01T12:20:00Z'
            reported_by: monitoring_system
            resolved_at: null
            resolution_notes: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api_get_employee
            parameters:
              email: sam.rivera@vdb.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'sam.rivera@vdb.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '17'
          - tool: okta_api_check_access
            parameters:
              email: sam.rivera@vdb.com
              app_name: Admin Panel
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Admin Panel (write non-PII only) access request
                description: Admin Panel (write non-PII only) access request
                status: open
                priority: normal
                type: problem
                requester_id: '17'
                assignee_id: '2'
                organization_id: '1'
                owner: it_support
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                resolution_category: denied
                approval_required: 'no'
                approval_status: not_required
    """
    assert_final_state_matches_golden(x, "sandbox_neobank_support_v1")
    assert judge.text_yesno(x.response, 'Does the response tell the employee that the requested Admin Panel write access cannot be granted?')
