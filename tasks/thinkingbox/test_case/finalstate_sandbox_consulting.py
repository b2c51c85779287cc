# Finalstate training tasks for the ThinkingBox scenario `sandbox_consulting`.
# Written for the finalstate project (not from ThinkingBox-Bench). Graded like the
# business-ops servers grade: the final database hash must equal the hash of the
# golden state (seed + data_patch + the golden tool calls below).

from thinkingbox.common import Judge, TestContext

"""!
scenario: sandbox_consulting
"""


def assert_final_state_matches_golden(x: TestContext, server: str):
    fx = x.effects[server]
    assert "result_db_hash" in fx, f"get_effects failed: {str(fx)[:500]}"
    assert fx["result_db_hash"] == fx["golden_db_hash"], (
        f"final state differs from the golden state: {fx['diff']}"
    )


def test_internal_folder_access(x: TestContext, judge: Judge):
    """!
    query: Hi, could I get access to the Chicago Office Proposal Templates folder in Box? I need to start
      a proposal draft.
    user_context: You are Nina Alvarez, Consultant in the Chicago office, corporate email nina.alvarez@msg.com.
      You need to read the Box folder 'Chicago Office Proposal Templates' (folder ID FLD-2500001) to reuse
      templates for a proposal. Viewing access is enough. You have no engagement code to give for this and
      no other request.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Document access): internal and public Box folders need no approval;
      grant viewer permission and solve the ticket. Ticket field conventions for this desk: set approval_required
      to ''no'' when the request needs no approval and to ''yes'' when an approval was required; when a request
      is denied before reaching any approval step, leave approval_required and approver_id empty. Box viewer
      access is recorded as access_type ''read_only''; software provisioned in Okta is recorded as access_type
      ''full_access''.'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: nina.alvarez@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'nina.alvarez@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: box_api
            parameters:
              action: get_folder_details
              folder_id: FLD-2500001
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Box access - Chicago Office Proposal Templates
                description: Box access - Chicago Office Proposal Templates
                status: open
                priority: normal
                type: task
                requester_id: '6'
                assignee_id: '157'
                tags:
                - document_access
                folder_id: FLD-2500001
          - tool: box_api
            parameters:
              action: grant_folder_access
              folder_id: FLD-2500001
              email: nina.alvarez@msg.com
              permission_level: viewer
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                approval_required: 'no'
                access_type: read_only
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_expense_override_after_approval(x: TestContext, judge: Judge):
    """!
    query: Hello, following up on my rejected expense EXP-2500011 (team dinner in New York). Sarah approved
      the override in the workflow yesterday, can you finish it so I get reimbursed?
    user_context: You are Tom Becker, Senior Consultant in New York, email tom.becker@msg.com. Your meal expense
      EXP-2500011 ($142, New York, 12 September 2025) was rejected for exceeding the meal per diem; you attached
      an itemized receipt. You opened a support ticket about it last week and your manager Sarah Johnson has
      since approved the override. You want the override completed. You have no engagement code to add.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Expenses): once the direct manager''s expense_override approval is
      APPROVED, override the rejection in Concur with the approver''s email and the reason matching the violation
      (over per diem with a valid business reason: justified_exception), then solve the ticket. Ticket field
      conventions for this desk: set approval_required to ''no'' when the request needs no approval and to
      ''yes'' when an approval was required; when a request is denied before reaching any approval step, leave
      approval_required and approver_id empty. Box viewer access is recorded as access_type ''read_only'';
      software provisioned in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
          zendesk_tickets:
          - id: '6'
            subject: Expense EXP-2500011 rejected - meal per diem
            description: Expense EXP-2500011 rejected - meal per diem
            status: pending
            priority: high
            type: task
            requester_id: '7'
            assignee_id: '157'
            organization_id: null
            tags:
            - expense_support
            created_at: '2025-09-24T15:00:00Z'
            updated_at: '2025-09-24T15:20:00Z'
            due_at: null
            engagement_code: null
            approval_required: 'yes'
            approver_id: sarah.johnson@msg.com
            asset_id: null
            catalog_id: null
            client_id: null
            expense_report_id: EXP-2500011
            course_id: null
            folder_id: null
            device_type: null
            hardware_order_id: null
            access_type: null
            license_pool: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: tom.becker@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'tom.becker@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: open
          - tool: concur_api
            parameters:
              action: get_expense_report
              expense_report_id: EXP-2500011
          - tool: approval_get_status
            parameters:
              request_type: expense_override
              requester_email: tom.becker@msg.com
          - tool: concur_api
            parameters:
              action: override_expense_rejection
              expense_report_id: EXP-2500011
              override_reason: justified_exception
              approver_email: sarah.johnson@msg.com
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_internal_training_after_engagement(x: TestContext, judge: Judge):
    """!
    query: Hi! I'd like to sign up for the Client Workshop Facilitation Essentials course in December.
    user_context: You are Owen Fletcher, Analyst in the Austin office, email owen.fletcher@msg.com. You want
      to enroll in the internal course 'Client Workshop Facilitation Essentials' (8-10 December 2025). Your
      current engagement ends on 28 November 2025. You have no other request.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Training): a course with cost 0 is internal training and needs no cost
      approval; if the course dates do not overlap any active or booked engagement assignment, no engagement
      approval is needed either, so enroll the employee directly and solve the ticket. Ticket field conventions
      for this desk: set approval_required to ''no'' when the request needs no approval and to ''yes'' when
      an approval was required; when a request is denied before reaching any approval step, leave approval_required
      and approver_id empty. Box viewer access is recorded as access_type ''read_only''; software provisioned
      in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: owen.fletcher@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'owen.fletcher@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '9'
          - tool: degreed_api
            parameters:
              action: search_courses
              keyword: Workshop Facilitation
          - tool: degreed_api
            parameters:
              action: check_enrollment
              course_id: CRS-2500301
          - tool: degreed_api
            parameters:
              action: get_training_history
              email: owen.fletcher@msg.com
          - tool: mavenlink_api
            parameters:
              action: get_employee_assignments
              email: owen.fletcher@msg.com
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Training enrollment - Client Workshop Facilitation Essentials
                description: Training enrollment - Client Workshop Facilitation Essentials
                status: open
                priority: normal
                type: task
                requester_id: '9'
                assignee_id: '157'
                tags:
                - training_enrollment
                course_id: CRS-2500301
          - tool: degreed_api
            parameters:
              action: enroll_employee
              course_id: CRS-2500301
              email: owen.fletcher@msg.com
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                approval_required: 'no'
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_software_manager_no_approval(x: TestContext, judge: Judge):
    """!
    query: Hi, I need a Plane.so Project Tracker license for my work on engagement ENG-2500101.
    user_context: You are Priya Raman, Manager in the San Francisco office, email priya.raman@msg.com. You
      need the 'Plane.so Project Tracker' software for engagement ENG-2500101 (Northwind Logistics), which
      you are assigned to. Full access is fine. You have no other request.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Software access): validate the engagement code (exists, active, employee
      assigned). Manager and Senior Manager levels need no approval when the annual cost is under $500. For
      a standard pool, check availability, then allocate the license from the catalog''s pool type with the
      engagement code and provision Okta access using the catalog software name as app_name. Ticket field
      conventions for this desk: set approval_required to ''no'' when the request needs no approval and to
      ''yes'' when an approval was required; when a request is denied before reaching any approval step, leave
      approval_required and approver_id empty. Box viewer access is recorded as access_type ''read_only'';
      software provisioned in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: priya.raman@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'priya.raman@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '8'
          - tool: software_catalog_search
            parameters:
              software_name: Plane
          - tool: software_catalog_get_details
            parameters:
              catalog_id: CAT-0123456
          - tool: salesforce_crm_get_engagement
            parameters:
              engagement_code: ENG-2500101
          - tool: salesforce_crm_check_employee_assignment
            parameters:
              email: priya.raman@msg.com
              engagement_code: ENG-2500101
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Software access - Plane.so Project Tracker
                description: Software access - Plane.so Project Tracker
                status: open
                priority: normal
                type: task
                requester_id: '8'
                assignee_id: '157'
                tags:
                - software_access
                catalog_id: CAT-0123456
                engagement_code: ENG-2500101
          - tool: license_management_api
            parameters:
              action: check_availability
              catalog_id: CAT-0123456
              pool_type: standard
          - tool: license_management_api
            parameters:
              action: allocate
              catalog_id: CAT-0123456
              pool_type: standard
              email: priya.raman@msg.com
              engagement_code: ENG-2500101
          - tool: okta_provision_access
            parameters:
              email: priya.raman@msg.com
              app_name: Plane.so Project Tracker
              access_type: full_access
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                approval_required: 'no'
                license_pool: standard
                access_type: full_access
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_docking_station_peripheral(x: TestContext, judge: Judge):
    """!
    query: Could I get a docking station for my desk in the SF office? I'm tired of plugging everything in
      every morning.
    user_context: You are Lena Park, Senior Consultant in the San Francisco office, email lena.park@msg.com.
      You want a docking station for your laptop. Nothing is broken; it is a convenience request. You have
      no docking station today and no engagement code to give. Accept whichever model is in stock.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Hardware): standard peripherals (monitors, docking stations, headsets)
      need no approval. If in stock at the employee''s office, reserve the first available device and assign
      it to the employee; there is no old device to retire for a first peripheral. Ticket field conventions
      for this desk: set approval_required to ''no'' when the request needs no approval and to ''yes'' when
      an approval was required; when a request is denied before reaching any approval step, leave approval_required
      and approver_id empty. Box viewer access is recorded as access_type ''read_only''; software provisioned
      in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: lena.park@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'lena.park@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '10'
          - tool: asset_management_api
            parameters:
              action: get_employee_devices
              email: lena.park@msg.com
          - tool: asset_management_api
            parameters:
              action: check_inventory
              device_type: docking_station
              location: San Francisco
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Docking station request
                description: Docking station request
                status: open
                priority: normal
                type: task
                requester_id: '10'
                assignee_id: '157'
                tags:
                - hardware_request
                device_type: docking_station
          - tool: asset_management_api
            parameters:
              action: reserve_device
              device_type: docking_station
              location: San Francisco
          - tool: asset_management_api
            parameters:
              action: assign_device
              asset_id: MSG00004002
              email: lena.park@msg.com
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                asset_id: MSG00004002
                approval_required: 'no'
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_client_access_after_approval(x: TestContext, judge: Judge):
    """!
    query: Hi, I'm back about my Northwind Logistics access request. Emily approved it. I still can't get
      into their TMS and the engagement is already running, so I'm blocked.
    user_context: You are Tom Becker, Senior Consultant, email tom.becker@msg.com. You are assigned to engagement
      ENG-2500101 for client Northwind Logistics (client ID CLT-2500101), which started in July 2025. Last
      week you opened a ticket for client VPN access plus read-only access to the client system named 'Northwind
      TMS'; the engagement manager Emily Rodriguez has approved it. Your NDA and clearance are done. You want
      the access now.
    max_user_sim_turns: 7
    bot_instructions: 'Policy excerpt (Client access): when all prerequisites are met and the engagement manager''s
      client_access approval is APPROVED, provision the client VPN (with the client ID) and the requested
      client system with the requested access type, then solve the ticket. Ticket field conventions for this
      desk: set approval_required to ''no'' when the request needs no approval and to ''yes'' when an approval
      was required; when a request is denied before reaching any approval step, leave approval_required and
      approver_id empty. Box viewer access is recorded as access_type ''read_only''; software provisioned
      in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
          zendesk_tickets:
          - id: '6'
            subject: Client access - Northwind Logistics VPN and TMS
            description: Client access - Northwind Logistics VPN and TMS
            status: pending
            priority: high
            type: task
            requester_id: '7'
            assignee_id: '157'
            organization_id: null
            tags:
            - client_access
            created_at: '2025-09-24T15:00:00Z'
            updated_at: '2025-09-24T15:20:00Z'
            due_at: null
            engagement_code: ENG-2500101
            approval_required: 'yes'
            approver_id: emily.rodriguez@msg.com
            asset_id: null
            catalog_id: null
            client_id: CLT-2500101
            expense_report_id: null
            course_id: null
            folder_id: null
            device_type: null
            hardware_order_id: null
            access_type: read_only
            license_pool: null
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: tom.becker@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'tom.becker@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: open
          - tool: salesforce_crm_get_engagement
            parameters:
              engagement_code: ENG-2500101
          - tool: salesforce_crm_check_employee_assignment
            parameters:
              email: tom.becker@msg.com
              engagement_code: ENG-2500101
          - tool: client_access_api
            parameters:
              action: check_client_requirements
              client_id: CLT-2500101
          - tool: client_access_api
            parameters:
              action: get_employee_prerequisites
              email: tom.becker@msg.com
              client_id: CLT-2500101
          - tool: approval_get_status
            parameters:
              request_type: client_access
              requester_email: tom.becker@msg.com
              engagement_code: ENG-2500101
          - tool: client_access_api
            parameters:
              action: provision_vpn
              email: tom.becker@msg.com
              client_id: CLT-2500101
          - tool: client_access_api
            parameters:
              action: provision_client_system
              email: tom.becker@msg.com
              client_id: CLT-2500101
              system_name: Northwind TMS
              access_type: read_only
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_phone_battery_replacement(x: TestContext, judge: Judge):
    """!
    query: My work phone's battery is shot, it drains fast and is dead by lunch. Can I get it replaced?
    user_context: You are Diego Santos, Consultant in the Austin office, email diego.santos@msg.com. Your
      company phone (Google Pixel 6, asset MSG00006201) drains fast and dies by midday, but it still works
      otherwise. Battery health in Settings shows 76%. No physical damage. Accept any phone model in stock
      and agree to return the old one.
    max_user_sim_turns: 7
    bot_instructions: 'Policy excerpt (Hardware): phone battery health 80% or below qualifies for replacement
      without approval. When stock exists at the employee''s office: reserve the first available device, assign
      it to the employee, retire the old device, and solve the ticket. Ticket field conventions for this desk:
      set approval_required to ''no'' when the request needs no approval and to ''yes'' when an approval was
      required; when a request is denied before reaching any approval step, leave approval_required and approver_id
      empty. Box viewer access is recorded as access_type ''read_only''; software provisioned in Okta is recorded
      as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: diego.santos@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'diego.santos@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '11'
          - tool: asset_management_api
            parameters:
              action: get_employee_devices
              email: diego.santos@msg.com
          - tool: asset_management_api
            parameters:
              action: get_device_details
              asset_id: MSG00006201
          - tool: zendesk_search_articles
            parameters:
              query: phone battery replacement policy
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Phone replacement - battery health 76%
                description: Phone replacement - battery health 76%
                status: open
                priority: high
                type: problem
                requester_id: '11'
                assignee_id: '157'
                tags:
                - hardware_request
                device_type: phone
          - tool: asset_management_api
            parameters:
              action: check_inventory
              device_type: phone
              location: Austin
          - tool: asset_management_api
            parameters:
              action: reserve_device
              device_type: phone
              location: Austin
          - tool: asset_management_api
            parameters:
              action: assign_device
              asset_id: MSG00002002
              email: diego.santos@msg.com
          - tool: asset_management_api
            parameters:
              action: retire_device
              asset_id: MSG00006201
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                asset_id: MSG00002002
                approval_required: 'no'
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")


def test_conference_overlap_denied(x: TestContext, judge: Judge):
    """!
    query: Hi, I'd love to attend the DataOps Summit 2025 in November. Can you enroll me?
    user_context: You are Nina Alvarez, Consultant in Chicago, email nina.alvarez@msg.com. You want to attend
      the 'DataOps Summit 2025' conference (12-14 November 2025, $1,800). You are currently staffed on engagement
      ENG-2500101 (Northwind Logistics) until March 2026, and you think your manager would be fine with it.
      If told it is not allowed, accept the answer and end the conversation.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (Training): if the course is a conference (training_category ''conference'')
      and its dates overlap any ACTIVE engagement assignment, deny immediately: conferences can only be attended
      after current engagement completion. No approvals are created and no enrollment is made. Ticket field
      conventions for this desk: set approval_required to ''no'' when the request needs no approval and to
      ''yes'' when an approval was required; when a request is denied before reaching any approval step, leave
      approval_required and approver_id empty. Box viewer access is recorded as access_type ''read_only'';
      software provisioned in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: nina.alvarez@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'nina.alvarez@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: degreed_api
            parameters:
              action: search_courses
              keyword: DataOps Summit
          - tool: mavenlink_api
            parameters:
              action: get_employee_assignments
              email: nina.alvarez@msg.com
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Training request - DataOps Summit 2025
                description: Training request - DataOps Summit 2025
                status: open
                priority: normal
                type: task
                requester_id: '6'
                assignee_id: '157'
                tags:
                - training_enrollment
                course_id: CRS-2500601
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")
    assert judge.text_yesno(x.response, 'Does the response tell the employee that the conference request is denied because conferences can only be attended after the current engagement is completed?')


def test_macbook_denied_standard_refresh(x: TestContext, judge: Judge):
    """!
    query: I'd like to swap my old laptop for a MacBook Pro. I need it for iOS app testing on engagement ENG-2500303.
    user_context: You are Marta Kowalski, Senior Consultant in the Austin office, email marta.kowalski@msg.com.
      Your laptop is a Dell Latitude 5430 (asset MSG00006001), about 40 months old; it still works but is
      slow. You want a MacBook Pro and justify it with engagement ENG-2500303 (Bluebird Apps iOS testing).
      If the MacBook cannot be approved, you accept a standard Windows laptop replacement instead and agree
      to return the old one.
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (Hardware): a MacBook is a non-standard laptop and needs a valid engagement
      code (exists, status active, employee assigned) plus manager approval. If the engagement is invalid
      or not active, deny the MacBook, do not store the code anywhere, and apply standard device rules: a
      laptop 36+ months old qualifies for standard replacement without approval, so reserve the first available
      laptop at the employee''s office, assign it, retire the old laptop and solve the ticket. Ticket field
      conventions for this desk: set approval_required to ''no'' when the request needs no approval and to
      ''yes'' when an approval was required; when a request is denied before reaching any approval step, leave
      approval_required and approver_id empty. Box viewer access is recorded as access_type ''read_only'';
      software provisioned in Okta is recorded as access_type ''full_access''.'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_consulting:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Nina Alvarez
            email: nina.alvarez@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-312-555-0141
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Tom Becker
            email: tom.becker@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-212-555-0172
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Priya Raman
            email: priya.raman@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0118
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '9'
            name: Owen Fletcher
            email: owen.fletcher@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0190
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '10'
            name: Lena Park
            email: lena.park@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-415-555-0133
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '11'
            name: Diego Santos
            email: diego.santos@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0157
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '12'
            name: Marta Kowalski
            email: marta.kowalski@msg.com
            role: end-user
            organization_id: '1'
            phone: +1-512-555-0164
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          workday_employees:
          - email: nina.alvarez@msg.com
            name: Nina Alvarez
            level: Consultant
            office_location: Chicago
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: tom.becker@msg.com
            name: Tom Becker
            level: Senior Consultant
            office_location: New York
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: priya.raman@msg.com
            name: Priya Raman
            level: Manager
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: richard.williams@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: owen.fletcher@msg.com
            name: Owen Fletcher
            level: Analyst
            office_location: Austin
            start_date: '2024-09-16T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: lena.park@msg.com
            name: Lena Park
            level: Senior Consultant
            office_location: San Francisco
            start_date: '2022-04-04T00:00:00Z'
            manager_email: sarah.johnson@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: diego.santos@msg.com
            name: Diego Santos
            level: Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          - email: marta.kowalski@msg.com
            name: Marta Kowalski
            level: Senior Consultant
            office_location: Austin
            start_date: '2022-04-04T00:00:00Z'
            manager_email: emily.rodriguez@msg.com
            partner_email: richard.williams@msg.com
            onboarding_phase: completed
            availability_status: available
            backup_approver_email: null
          salesforce_crm_clients:
          - id: CLT-2500101
            name: Northwind Logistics
            requires_nda: true
            clearance_level: standard
            required_training_courses:
            - CRS-2500501
          - id: CLT-2500202
            name: Harbor Health Network
            requires_nda: true
            clearance_level: high_security
            required_training_courses: []
          - id: CLT-2500303
            name: Bluebird Apps
            requires_nda: false
            clearance_level: standard
            required_training_courses: []
          salesforce_crm_sf_engagements:
          - engagement_code: ENG-2500101
            client_id: CLT-2500101
            engagement_manager_email: emily.rodriguez@msg.com
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
          - engagement_code: ENG-2500202
            client_id: CLT-2500202
            engagement_manager_email: sarah.johnson@msg.com
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
          - engagement_code: ENG-2500303
            client_id: CLT-2500303
            engagement_manager_email: emily.rodriguez@msg.com
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
          mavenlink_mv_engagements:
          - engagement_code: ENG-2500101
            status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - engagement_code: ENG-2500202
            status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2026-01-31T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - engagement_code: ENG-2500303
            status: completed
            start_date: '2025-01-06T00:00:00Z'
            end_date: '2025-06-27T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          mavenlink_employee_assignments:
          - id: ASN-2500001
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500002
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500003
            employee_email: priya.raman@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          - id: ASN-2500004
            employee_email: owen.fletcher@msg.com
            engagement_code: ENG-2500202
            assignment_status: active
            start_date: '2025-08-01T00:00:00Z'
            end_date: '2025-11-28T00:00:00Z'
            senior_manager_email: sarah.johnson@msg.com
          - id: ASN-2500005
            employee_email: diego.santos@msg.com
            engagement_code: ENG-2500101
            assignment_status: active
            start_date: '2025-07-01T00:00:00Z'
            end_date: '2026-03-31T00:00:00Z'
            senior_manager_email: emily.rodriguez@msg.com
          asset_management_devices:
          - id: MSG00006001
            device_type: laptop
            model: Dell Latitude 5430
            age_months: 40
            inventory_status: assigned
            location: Austin
          - id: MSG00006101
            device_type: laptop
            model: Dell Latitude 7450
            age_months: 2
            inventory_status: available
            location: Austin
          - id: MSG00006102
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 5
            age_months: 1
            inventory_status: available
            location: Austin
          - id: MSG00006201
            device_type: phone
            model: Google Pixel 6
            age_months: 30
            inventory_status: assigned
            location: Austin
          - id: MSG00006301
            device_type: laptop
            model: Lenovo ThinkPad T14 Gen 4
            age_months: 14
            inventory_status: assigned
            location: San Francisco
          asset_management_device_assignments:
          - id: ASMT-2500001
            asset_id: MSG00006001
            employee_email: marta.kowalski@msg.com
            returned_at: null
          - id: ASMT-2500002
            asset_id: MSG00006201
            employee_email: diego.santos@msg.com
            returned_at: null
          - id: ASMT-2500003
            asset_id: MSG00006301
            employee_email: lena.park@msg.com
            returned_at: null
          license_management_license_pool_record:
          - catalog_id: CAT-0123456
            pool_type: standard
            total_licenses: 5
          license_management_license_allocation:
          - id: LIC-2500001
            catalog_id: CAT-0123456
            employee_email: nina.alvarez@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          - id: LIC-2500002
            catalog_id: CAT-0123456
            employee_email: tom.becker@msg.com
            engagement_code: ENG-2500101
            pool_type: standard
            deallocated_at: null
          degreed_training_courses:
          - id: CRS-2500301
            title: Client Workshop Facilitation Essentials
            cost: 0
            training_category: nice_to_have
            max_seats: 20
            start_date: '2025-12-08T09:00:00Z'
            end_date: '2025-12-10T17:00:00Z'
            prerequisites: []
          - id: CRS-2500501
            title: Northwind Data Handling Standards
            cost: 0
            training_category: must_have
            max_seats: null
            start_date: null
            end_date: null
            prerequisites: []
          - id: CRS-2500601
            title: DataOps Summit 2025
            cost: 1800
            training_category: conference
            max_seats: 30
            start_date: '2025-11-12T08:00:00Z'
            end_date: '2025-11-14T18:00:00Z'
            prerequisites: []
          degreed_training_enrollments:
          - id: ENR-2500001
            employee_email: tom.becker@msg.com
            course_id: CRS-2500501
            completion_date: '2025-07-20T00:00:00Z'
          client_access_clearance_record:
          - employee_email: tom.becker@msg.com
            clearance_level: standard
            status: cleared
          client_access_nda_record:
          - employee_email: tom.becker@msg.com
            client_id: CLT-2500101
            status: signed
          box_folders:
          - id: FLD-2500001
            folder_name: Chicago Office Proposal Templates
            confidentiality_level: internal
            owner_email: chicago-office@msg.com
            client_id: null
            engagement_code: null
          concur_expense_reports:
          - id: EXP-2500011
            employee_email: tom.becker@msg.com
            amount: 142
            category: meals
            trip_location_city: New York
            trip_location_state: NY
            expense_date: '2025-09-12T00:00:00Z'
            receipt_status: itemized
            rejection_reason: Daily meal total exceeds per diem limit
            override_approved: false
            override_approved_by: null
            override_reason: null
          approval_approval_requests:
          - id: APR-2500011
            request_type: expense_override
            requester_email: tom.becker@msg.com
            approver_email: sarah.johnson@msg.com
            amount: 142
            engagement_code: null
            status: approved
          - id: APR-2500012
            request_type: client_access
            requester_email: tom.becker@msg.com
            approver_email: emily.rodriguez@msg.com
            amount: null
            engagement_code: ENG-2500101
            status: approved
        golden_test_case:
          tool_interactions:
          - tool: workday_api
            parameters:
              action: get_employee
              email: marta.kowalski@msg.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'marta.kowalski@msg.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '12'
          - tool: salesforce_crm_get_engagement
            parameters:
              engagement_code: ENG-2500303
          - tool: asset_management_api
            parameters:
              action: get_employee_devices
              email: marta.kowalski@msg.com
          - tool: asset_management_api
            parameters:
              action: get_device_details
              asset_id: MSG00006001
          - tool: zendesk_search_articles
            parameters:
              query: laptop refresh policy
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Laptop replacement request (MacBook requested)
                description: Laptop replacement request (MacBook requested)
                status: open
                priority: normal
                type: task
                requester_id: '12'
                assignee_id: '157'
                tags:
                - hardware_request
                device_type: laptop
          - tool: asset_management_api
            parameters:
              action: check_inventory
              device_type: laptop
              location: Austin
          - tool: asset_management_api
            parameters:
              action: reserve_device
              device_type: laptop
              location: Austin
          - tool: asset_management_api
            parameters:
              action: assign_device
              asset_id: MSG00006101
              email: marta.kowalski@msg.com
          - tool: asset_management_api
            parameters:
              action: retire_device
              asset_id: MSG00006001
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                asset_id: MSG00006101
                approval_required: 'no'
    """
    assert_final_state_matches_golden(x, "sandbox_consulting")
