# Finalstate training tasks for the ThinkingBox scenario `sandbox_auto_insurance`.
# Written for the finalstate project (not from ThinkingBox-Bench). Graded like the
# business-ops servers grade: the final database hash must equal the hash of the
# golden state (seed + data_patch + the golden tool calls below).

from thinkingbox.common import Judge, TestContext

"""!
scenario: sandbox_auto_insurance
"""


def assert_final_state_matches_golden(x: TestContext, server: str):
    fx = x.effects[server]
    assert "result_db_hash" in fx, f"get_effects failed: {str(fx)[:500]}"
    assert fx["result_db_hash"] == fx["golden_db_hash"], (
        f"final state differs from the golden state: {fx['diff']}"
    )


def test_remove_vehicle_sold(x: TestContext, judge: Judge):
    """!
    query: Hi, I sold my Nissan Sentra last weekend and need it taken off my auto policy.
    user_context: 'You are Laura Bennett, date of birth April 12, 1979, email laura.bennett@mailbox.com, policy
      POL-0077777777 (Texas). Last 4 of your SSN: 4471. You are the named insured. You sold the 2020 Nissan
      Sentra and want it removed from the policy. Removal effective today is fine. Confirm when asked.'
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: laura.bennett@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00077777
              ssn_last_4: '4471'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'laura.bennett@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: policy_get_policy_vehicles
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Remove vehicle - Nissan Sentra
                description: Remove vehicle - Nissan Sentra
                status: open
                priority: normal
                type: task
                requester_id: '6'
                assignee_id: '585'
                request_category: Policy Servicing
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                effective_date_of_change: '2025-10-01'
          - tool: policy_update_vehicle_status
            parameters:
              vehicle_id: VEH-00077702
              new_status: Removed
              effective_date: '2025-10-01'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                outcome_summary: Completed
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")


def test_remove_driver_moved_out(x: TestContext, judge: Judge):
    """!
    query: My son Ethan moved out and has his own insurance now. Please remove him from my policy.
    user_context: 'You are Laura Bennett, date of birth April 12, 1979, email laura.bennett@mailbox.com, policy
      POL-0077777777 (Texas). Last 4 of your SSN: 4471. You are the named insured. Your son Ethan Bennett
      moved out and no longer drives your cars. Remove him effective today. Confirm when asked.'
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: laura.bennett@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00077777
              ssn_last_4: '4471'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'laura.bennett@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: policy_get_policy_drivers
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Remove driver - Ethan Bennett
                description: Remove driver - Ethan Bennett
                status: open
                priority: normal
                type: task
                requester_id: '6'
                assignee_id: '585'
                request_category: Policy Servicing
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                effective_date_of_change: '2025-10-01'
          - tool: policy_update_driver_status
            parameters:
              driver_id: DRV-00077702
              new_status: Removed
              effective_date: '2025-10-01'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                outcome_summary: Completed
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")


def test_add_vehicle_california_no_backdating(x: TestContext, judge: Judge):
    """!
    query: I bought a 2024 Subaru Outback last Friday and want it added to my policy, effective from the day
      I bought it.
    user_context: 'You are Kevin Park, date of birth September 2, 1983, email kevin.park@mailbox.com, policy
      POL-0088888888 (California). Last 4 of your SSN: 8820. You are the named insured. New car: 2024 Subaru
      Outback, VIN 4S4BTANC5R3123456, bought on September 26, 2025. You would prefer coverage from September
      26, but if that is not allowed you accept coverage starting today. Confirm when asked.'
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (Policy Servicing - Vehicles): adding a vehicle is a standard policy
      change; no underwriting review is needed for a standard passenger vehicle with a valid VIN. Once the
      vehicle is added, the ticket is solved with outcome Completed.'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: kevin.park@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00088888
              ssn_last_4: '8820'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0088888888
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'kevin.park@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: lookup_validate_vin
            parameters:
              vin: 4S4BTANC5R3123456
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Add vehicle - 2024 Subaru Outback
                description: Add vehicle - 2024 Subaru Outback
                status: open
                priority: normal
                type: task
                requester_id: '7'
                assignee_id: '585'
                request_category: Policy Servicing
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                effective_date_of_change: '2025-10-01'
          - tool: policy_add_vehicle
            parameters:
              policy_id: POL-0088888888
              vin: 4S4BTANC5R3123456
              year: 2024
              make: Subaru
              model: Outback
              effective_date: '2025-10-01'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                outcome_summary: Completed
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")
    assert judge.text_yesno(x.response, 'Does the response tell the customer that the coverage for the new vehicle cannot start before today?')


def test_decline_dui_driver_standard_tier(x: TestContext, judge: Judge):
    """!
    query: I'd like to add my new husband to my car insurance.
    user_context: 'You are Laura Bennett, date of birth April 12, 1979, email laura.bennett@mailbox.com, policy
      POL-0077777777 (Texas). Last 4 of your SSN: 4471. You are the named insured. Your husband is Daniel
      Reyes, born 1981-11-20, Texas license TX9981234, relationship spouse. He had a DUI conviction in March
      2023. Answer honestly if asked about violations. If the request is declined, accept it and end the conversation.'
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: laura.bennett@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00077777
              ssn_last_4: '4471'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'laura.bennett@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: crm_get_customer_profile
            parameters:
              customer_id: CUS-00077777
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Add driver - Daniel Reyes (DUI 2023)
                description: Add driver - Daniel Reyes (DUI 2023)
                status: open
                priority: normal
                type: task
                requester_id: '6'
                assignee_id: '585'
                request_category: Policy Servicing
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                effective_date_of_change: '2025-10-01'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                outcome_summary: Declined
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")


def test_add_dui_driver_premium_uw_review(x: TestContext, judge: Judge):
    """!
    query: I need to add my brother to my policy, he's living with me now and will drive my Tesla sometimes.
    user_context: 'You are Kevin Park, date of birth September 2, 1983, email kevin.park@mailbox.com, policy
      POL-0088888888 (California). Last 4 of your SSN: 8820. You are the named insured. Your brother is Brian
      Park, born 1987-02-14, California license C5521987, relationship sibling. He had a DUI in June 2022.
      Answer honestly if asked about violations. You accept an underwriting review. Confirm when asked.'
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: kevin.park@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00088888
              ssn_last_4: '8820'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0088888888
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'kevin.park@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: crm_get_customer_profile
            parameters:
              customer_id: CUS-00088888
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Add driver - Brian Park (DUI 2022)
                description: Add driver - Brian Park (DUI 2022)
                status: open
                priority: normal
                type: task
                requester_id: '7'
                assignee_id: '585'
                request_category: Policy Servicing
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                effective_date_of_change: '2025-10-01'
          - tool: policy_add_driver
            parameters:
              policy_id: POL-0088888888
              name: Brian Park
              date_of_birth: '1987-02-14'
              license_number: C5521987
              license_state: CA
              relationship: Sibling
              status: Rated
              effective_date: '2025-10-01'
              uw_pending: true
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: hold
                outcome_summary: Pending – Internal Review
                internal_review_type: Underwriting
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")


def test_fnol_windshield_glass_only(x: TestContext, judge: Judge):
    """!
    query: A rock hit my windshield on I-35 yesterday and now there's a big crack across it. I need to file
      a claim.
    user_context: 'You are Laura Bennett, date of birth April 12, 1979, email laura.bennett@mailbox.com, policy
      POL-0077777777 (Texas). Last 4 of your SSN: 4471. You are the named insured. The damage is to the 2022
      Ford Escape (VIN 1FMCU9J94NUA12345). It happened on September 30, 2025 on I-35 near Austin, TX. You
      were driving. Only the windshield is damaged, no injuries, no other vehicle involved.'
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (Claims): glass-only damage is filed as claim type ''Comprehensive –
      Glass Only'' with severity Minor; no police report is required. After the FNOL is created, set the ticket
      to solved with outcome Completed.'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_auto_insurance:
        data_patch:
          zendesk_users:
          - id: '6'
            name: Laura Bennett
            email: laura.bennett@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 512-555-0161
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Kevin Park
            email: kevin.park@mailbox.com
            role: end-user
            organization_id: '1'
            phone: 415-555-0177
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_customers:
          - id: CUS-00077777
            email: laura.bennett@mailbox.com
            first_name: Laura
            last_name: Bennett
            date_of_birth: '1979-04-12'
            phone: 512-555-0161
            tier: Standard
            fraud_flag: false
            ssn_last_4: '4471'
            security_question: What is your pet's name?
            security_answer: Biscuit
          - id: CUS-00088888
            email: kevin.park@mailbox.com
            first_name: Kevin
            last_name: Park
            date_of_birth: '1983-09-02'
            phone: 415-555-0177
            tier: Premium
            fraud_flag: false
            ssn_last_4: '8820'
            security_question: What city were you born in?
            security_answer: Fresno
          policy_policies:
          - id: POL-0077777777
            customer_id: CUS-00077777
            state: TX
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00077777
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          - id: POL-0088888888
            customer_id: CUS-00088888
            state: CA
            status: Active
            effective_date: '2025-03-01'
            expiration_date: '2026-03-01'
            renewal_date: '2026-03-01'
            cancellation_date: null
            cancellation_reason: null
            named_insured_id: CUS-00088888
            co_insured_id: null
            automatic_extension_days: 14
            at_fault_claims_3_years: 0
            lapse_flag: false
            lapse_start: null
            lapse_end: null
          policy_drivers:
          - id: DRV-00077701
            policy_id: POL-0077777777
            customer_id: null
            name: Laura Bennett
            date_of_birth: '1979-04-12'
            license_number: TX4471001
            license_state: TX
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00077702
            policy_id: POL-0077777777
            customer_id: null
            name: Ethan Bennett
            date_of_birth: '2003-06-30'
            license_number: TX4471002
            license_state: TX
            relationship: Child
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: false
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          - id: DRV-00088801
            policy_id: POL-0088888888
            customer_id: null
            name: Kevin Park
            date_of_birth: '1983-09-02'
            license_number: C8820001
            license_state: CA
            relationship: Self
            status: Rated
            effective_date: '2025-03-01'
            removal_date: null
            is_named_insured: true
            is_co_insured: false
            uw_pending: false
            exclusion_form_required: false
          policy_vehicles:
          - id: VEH-00077701
            policy_id: POL-0077777777
            vin: 1FMCU9J94NUA12345
            year: 2022
            make: Ford
            model: Escape
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00077702
            policy_id: POL-0077777777
            vin: 3N1AB8CV4LY234567
            year: 2020
            make: Nissan
            model: Sentra
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
          - id: VEH-00088801
            policy_id: POL-0088888888
            vin: 5YJ3E1EA7NF345678
            year: 2022
            make: Tesla
            model: Model 3
            status: Active
            effective_date: '2025-03-01'
            removal_date: null
            date_added_to_policy: '2025-03-01'
            collision_coverage: true
            comprehensive_coverage: true
            rental_coverage: false
            uw_pending: false
        golden_test_case:
          tool_interactions:
          - tool: crm_get_customer_by_email
            parameters:
              email: laura.bennett@mailbox.com
          - tool: crm_verify_identity
            parameters:
              customer_id: CUS-00077777
              ssn_last_4: '4471'
          - tool: policy_get_policy_details
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'laura.bennett@mailbox.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: policy_get_policy_vehicles
            parameters:
              policy_id: POL-0077777777
          - tool: policy_get_policy_drivers
            parameters:
              policy_id: POL-0077777777
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: FNOL - windshield crack
                description: FNOL - windshield crack
                status: open
                priority: normal
                type: incident
                requester_id: '6'
                assignee_id: '585'
                request_category: Claims
                user_type: Named Insured
                internal_review_type: Not Required
                escalation_level: Standard
                claims_action_type: FNOL – Glass Only
          - tool: claims_create_fnol
            parameters:
              policy_id: POL-0077777777
              vehicle_id: VEH-00077701
              driver_id: DRV-00077701
              date_of_loss: '2025-09-30'
              loss_location: I-35, Austin, TX
              claim_type: Comprehensive – Glass Only
              severity: Minor
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
                outcome_summary: Completed
    """
    assert_final_state_matches_golden(x, "sandbox_auto_insurance")
