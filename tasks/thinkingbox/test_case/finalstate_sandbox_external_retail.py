# Finalstate training tasks for the ThinkingBox scenario `sandbox_external_retail`.
# Written for the finalstate project (not from ThinkingBox-Bench). Graded like the
# business-ops servers grade: the final database hash must equal the hash of the
# golden state (seed + data_patch + the golden tool calls below).

from thinkingbox.common import Judge, TestContext

"""!
scenario: sandbox_external_retail
"""


def assert_final_state_matches_golden(x: TestContext, server: str):
    fx = x.effects[server]
    assert "result_db_hash" in fx, f"get_effects failed: {str(fx)[:500]}"
    assert fx["result_db_hash"] == fx["golden_db_hash"], (
        f"final state differs from the golden state: {fx['diff']}"
    )


def test_close_restock_ticket_after_delivery(x: TestContext, judge: Judge):
    """!
    query: Hi, I had a case open with you about waiting for the LG OLED TV to come back in stock. It arrived
      yesterday and works fine, so you can wrap that up.
    user_context: You are Jane Doe, email jane.doe@example.com, customer id CUS-10000002. Your earlier case
      was about waiting for the restock of the LG 65 inch OLED TV (order ORD-10000002). The TV has now arrived
      and you have no other issue. You just want the case closed.
    max_user_sim_turns: 5
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          zendesk_tickets:
          - id: '6'
            subject: Waiting for LG OLED restock
            description: Customer agreed to wait for the LG 65 inch OLED TV restock instead of a refund.
            status: hold
            priority: normal
            type: incident
            requester_id: '7'
            assignee_id: '2'
            organization_id: null
            tags: []
            created_at: '2025-09-20T10:00:00Z'
            updated_at: '2025-09-20T10:05:00Z'
            due_at: null
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_cancel_processing_order(x: TestContext, judge: Judge):
    """!
    query: I ordered a pair of Sony headphones this morning but found them cheaper locally. Can you cancel
      the order please? It's ORD-20000002.
    user_context: You are Jane Doe, email jane.doe@example.com (customer id CUS-10000002). Order ORD-20000002
      (Sony WH-1000XM5 headphones) was placed this morning. You want it cancelled because you changed your
      mind. Confirm the cancellation when asked.
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000002
            customer_id: CUS-10000002
            order_date: '2025-10-01T08:10:00Z'
            status: processing
            subtotal_amount: 399.99
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 399.99
            shipping_address_line1: 456 Oak Avenue
            shipping_address_city: Nashville
            shipping_address_state: TN
            shipping_address_zip: '37201'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: null
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000002
            order_id: ORD-20000002
            customer_id: CUS-10000002
            amount: 399.99
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-10-01T08:10:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000002
            order_id: ORD-20000002
            sku: SKU-10000007
            product_name: Sony WH-1000XM5 Wireless Headphones
            quantity: 1
            base_price: 399.99
            discount_amount: 0.0
            final_price: 399.99
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: get_order
            parameters:
              order_id: ORD-20000002
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancel order ORD-20000002
                description: Customer requests cancellation of processing order ORD-20000002.
                status: open
                priority: normal
                type: incident
                requester_id: '7'
                assignee_id: '2'
          - tool: cancel_order
            parameters:
              order_id: ORD-20000002
              cancellation_reason: customer_request
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_cancel_plus_membership(x: TestContext, judge: Judge):
    """!
    query: I'd like to cancel my TechHome Plus membership, I don't shop enough to make it worth it.
    user_context: You are John Smith, email john.smith@example.com, customer id CUS-10000001. You have an
      active TechHome Plus membership and want to cancel it. You understand your points stay in the record.
      Confirm when asked.
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: john.smith@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'john.smith@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: get_membership_details
            parameters:
              customer_id: CUS-10000001
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancel Plus membership
                description: Customer requests cancellation of TechHome Plus membership.
                status: open
                priority: high
                type: incident
                requester_id: '6'
                assignee_id: '2'
          - tool: update_membership_status
            parameters:
              customer_id: CUS-10000001
              action: cancel
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_update_address_within_window(x: TestContext, judge: Judge):
    """!
    query: I just placed order ORD-20000004 for a Dyson vacuum and realised it's going to my old address.
      Can you change it?
    user_context: 'You are Jane Doe, email jane.doe@example.com, customer id CUS-10000002. The new shipping
      address is exactly: 88 Riverside Drive, Knoxville, TN 37915. You placed the order about 40 minutes ago.'
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000004
            customer_id: CUS-10000002
            order_date: '2025-10-01T12:20:00Z'
            status: processing
            subtotal_amount: 549.99
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 549.99
            shipping_address_line1: 456 Oak Avenue
            shipping_address_city: Nashville
            shipping_address_state: TN
            shipping_address_zip: '37201'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: null
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000004
            order_id: ORD-20000004
            customer_id: CUS-10000002
            amount: 549.99
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-10-01T12:20:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000004
            order_id: ORD-20000004
            sku: SKU-10000003
            product_name: Dyson V15 Detect Cordless Vacuum
            quantity: 1
            base_price: 549.99
            discount_amount: 0.0
            final_price: 549.99
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: get_order
            parameters:
              order_id: ORD-20000004
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Shipping address change ORD-20000004
                description: Customer requests a new shipping address for ORD-20000004.
                status: open
                priority: normal
                type: incident
                requester_id: '7'
                assignee_id: '2'
          - tool: update_order_address
            parameters:
              order_id: ORD-20000004
              new_address_line1: 88 Riverside Drive
              new_address_city: Knoxville
              new_address_state: TN
              new_address_zip: '37915'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_deny_address_change_outside_window(x: TestContext, judge: Judge):
    """!
    query: Please change the delivery address on my order ORD-20000005 to 12 Lake View Rd, Franklin, TN 37064.
    user_context: You are Jane Doe, email jane.doe@example.com, customer id CUS-10000002. You placed order
      ORD-20000005 yesterday. If the address cannot be changed, you do NOT want to cancel the order; you will
      arrange to pick it up at the old address. Decline any cancellation offer.
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000005
            customer_id: CUS-10000002
            order_date: '2025-09-30T10:00:00Z'
            status: processing
            subtotal_amount: 399.99
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 399.99
            shipping_address_line1: 456 Oak Avenue
            shipping_address_city: Nashville
            shipping_address_state: TN
            shipping_address_zip: '37201'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: null
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000005
            order_id: ORD-20000005
            customer_id: CUS-10000002
            amount: 399.99
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-09-30T10:00:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000005
            order_id: ORD-20000005
            sku: SKU-10000007
            product_name: Sony WH-1000XM5 Wireless Headphones
            quantity: 1
            base_price: 399.99
            discount_amount: 0.0
            final_price: 399.99
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: get_order
            parameters:
              order_id: ORD-20000005
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Address change request ORD-20000005
                description: Customer asked to change the shipping address; outside the 2-hour modification
                  window.
                status: open
                priority: normal
                type: incident
                requester_id: '7'
                assignee_id: '2'
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")
    assert judge.text_yesno(x.response, 'Does the response tell the customer that the shipping address can no longer be changed?')


def test_vip_cancel_order_with_installation(x: TestContext, judge: Judge):
    """!
    query: I need to cancel order ORD-20000006, the dishwasher plus installation. We're moving out of state.
    user_context: You are Bob Wilson, email bob.wilson@example.com, customer id CUS-10000003. Order ORD-20000006
      is a Bosch dishwasher with installation. You want the whole order cancelled (dishwasher and installation).
      Confirm when asked.
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000006
            customer_id: CUS-10000003
            order_date: '2025-09-30T16:00:00Z'
            status: processing
            subtotal_amount: 1248.99
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 1248.99
            shipping_address_line1: 789 Elm Street
            shipping_address_city: Chattanooga
            shipping_address_state: TN
            shipping_address_zip: '37402'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: JOB-20000006
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000006
            order_id: ORD-20000006
            customer_id: CUS-10000003
            amount: 1248.99
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-09-30T16:00:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000006
            order_id: ORD-20000006
            sku: SKU-10000006
            product_name: Bosch 800 Series Dishwasher
            quantity: 1
            base_price: 1099.99
            discount_amount: 0.0
            final_price: 1099.99
          external_retail_toolset_jobber_models_installation_jobs:
          - id: JOB-20000006
            order_id: ORD-20000006
            customer_id: CUS-10000003
            service_type: appliance_basic
            scheduled_date: '2025-10-08T10:00:00Z'
            technician_id: TECH-0045
            status: scheduled
            completion_date: null
            workmanship_warranty_end: null
            service_cost: 149.0
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: bob.wilson@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'bob.wilson@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '8'
          - tool: get_order
            parameters:
              order_id: ORD-20000006
          - tool: get_installation_job
            parameters:
              job_id: JOB-20000006
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancel order ORD-20000006 with installation
                description: VIP customer cancels dishwasher order and installation.
                status: open
                priority: urgent
                type: incident
                requester_id: '8'
                assignee_id: '2'
          - tool: cancel_installation
            parameters:
              job_id: JOB-20000006
              order_id: ORD-20000006
              cancellation_reason: customer_cancelled_order
          - tool: cancel_order
            parameters:
              order_id: ORD-20000006
              cancellation_reason: customer_request
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_late_delivery_compensation_regular(x: TestContext, judge: Judge):
    """!
    query: Where is my TV? Order ORD-20000007 was supposed to arrive over a week ago and it's still not here.
    user_context: You are John Smith, email john.smith@example.com, customer id CUS-10000001. Order ORD-20000007
      (LG OLED TV, $1,450.00) was due around September 22 and has not arrived. You are happy to keep waiting
      for it, and you accept any compensation offered.
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (Order Status and Tracking): for tracking status `delayed`, IF order
      total > $500 AND delay > 5 days past the estimated delivery date: Regular customers (score 70-100) get
      a 10% partial refund of the order total, Opportunist customers a 5% partial refund, Bonus hunter customers
      information only. Use refund reason `late_delivery_compensation`. Ticket status after compensation:
      solved.'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000007
            customer_id: CUS-10000001
            order_date: '2025-09-12T10:00:00Z'
            status: shipped
            subtotal_amount: 1450.0
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 1450.0
            shipping_address_line1: 123 Main St
            shipping_address_city: Memphis
            shipping_address_state: TN
            shipping_address_zip: '38103'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: null
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000007
            order_id: ORD-20000007
            customer_id: CUS-10000001
            amount: 1450.0
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-09-12T10:00:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000007
            order_id: ORD-20000007
            sku: SKU-10000002
            product_name: LG 65 inch OLED 4K Smart TV
            quantity: 1
            base_price: 1450.0
            discount_amount: 0.0
            final_price: 1450.0
          external_retail_toolset_oms_models_shipments:
          - id: SHP-20000007
            order_id: ORD-20000007
            carrier: FedEx
            tracking_number: TRK-200000000007
            ship_date: '2025-09-14T08:00:00Z'
            estimated_delivery_date: '2025-09-22T17:00:00Z'
            actual_delivery_date: null
          external_retail_toolset_oms_models_carrier_tracking:
          - tracking_number: TRK-200000000007
            shipment_id: SHP-20000007
            carrier: FedEx
            status: delayed
            current_location: Memphis, TN
            estimated_delivery: '2025-09-22T17:00:00Z'
            last_update: '2025-09-30T18:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: john.smith@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'john.smith@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '6'
          - tool: get_order
            parameters:
              order_id: ORD-20000007
          - tool: get_shipment_tracking
            parameters:
              order_id: ORD-20000007
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Delayed delivery ORD-20000007
                description: Shipment delayed 9 days past estimated delivery.
                status: open
                priority: high
                type: incident
                requester_id: '6'
                assignee_id: '2'
          - tool: create_refund
            parameters:
              order_id: ORD-20000007
              customer_id: CUS-10000001
              amount: 145.0
              refund_reason: late_delivery_compensation
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")
    assert judge.text_yesno(x.response, 'Does the response tell the customer that a partial refund was issued as compensation for the late delivery?')


def test_late_delivery_compensation_opportunist(x: TestContext, judge: Judge):
    """!
    query: My order ORD-20000008 is more than a week late. What's going on?
    user_context: You are Jane Doe, email jane.doe@example.com, customer id CUS-10000002. Order ORD-20000008
      ($800.00 TV) was due on September 23 and has not arrived. You will keep waiting for it and accept any
      compensation offered.
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (Order Status and Tracking): for tracking status `delayed`, IF order
      total > $500 AND delay > 5 days past the estimated delivery date: Regular customers (score 70-100) get
      a 10% partial refund of the order total, Opportunist customers a 5% partial refund, Bonus hunter customers
      information only. Use refund reason `late_delivery_compensation`. Ticket status after compensation:
      solved.'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          external_retail_toolset_oms_models_orders:
          - id: ORD-20000008
            customer_id: CUS-10000002
            order_date: '2025-09-12T10:00:00Z'
            status: shipped
            subtotal_amount: 800.0
            discount_amount: 0.0
            points_used: 0
            points_value: 0.0
            shipping_cost: 0.0
            total_amount: 800.0
            shipping_address_line1: 123 Main St
            shipping_address_city: Memphis
            shipping_address_state: TN
            shipping_address_zip: '38103'
            shipping_speed: standard
            fulfillment_type: warehouse
            installation_service_id: null
          external_retail_toolset_stripe_models_payment_transactions:
          - id: TXN-20000008
            order_id: ORD-20000008
            customer_id: CUS-10000002
            amount: 800.0
            status: authorized
            payment_method: Visa ending in 4242
            transaction_date: '2025-09-12T10:00:05Z'
            charge_reason: null
          external_retail_toolset_oms_models_order_line_items:
          - id: LIN-20000008
            order_id: ORD-20000008
            sku: SKU-10000002
            product_name: LG 65 inch OLED 4K Smart TV
            quantity: 1
            base_price: 800.0
            discount_amount: 0.0
            final_price: 800.0
          external_retail_toolset_oms_models_shipments:
          - id: SHP-20000008
            order_id: ORD-20000008
            carrier: FedEx
            tracking_number: TRK-200000000008
            ship_date: '2025-09-14T08:00:00Z'
            estimated_delivery_date: '2025-09-23T17:00:00Z'
            actual_delivery_date: null
          external_retail_toolset_oms_models_carrier_tracking:
          - tracking_number: TRK-200000000008
            shipment_id: SHP-20000008
            carrier: FedEx
            status: delayed
            current_location: Memphis, TN
            estimated_delivery: '2025-09-23T17:00:00Z'
            last_update: '2025-09-30T18:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: get_order
            parameters:
              order_id: ORD-20000008
          - tool: get_shipment_tracking
            parameters:
              order_id: ORD-20000008
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Delayed delivery ORD-20000008
                description: Shipment delayed 8 days past estimated delivery.
                status: open
                priority: normal
                type: incident
                requester_id: '7'
                assignee_id: '2'
          - tool: create_refund
            parameters:
              order_id: ORD-20000008
              customer_id: CUS-10000002
              amount: 40.0
              refund_reason: late_delivery_compensation
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")


def test_upgrade_to_plus_membership(x: TestContext, judge: Judge):
    """!
    query: How do I become a TechHome Plus member? I'd like to sign up today.
    user_context: You are Jane Doe, email jane.doe@example.com, customer id CUS-10000002. You have never had
      a membership. You accept the $79/year fee and want to upgrade now.
    max_user_sim_turns: 8
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      sandbox_external_retail:
        data_patch:
          zendesk_users:
          - id: '6'
            name: John Smith
            email: john.smith@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0123
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '7'
            name: Jane Doe
            email: jane.doe@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0124
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: '8'
            name: Bob Wilson
            email: bob.wilson@example.com
            role: end-user
            organization_id: '1'
            phone: +1-555-0125
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: get_customer_profile
            parameters:
              email: jane.doe@example.com
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'jane.doe@example.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: requester_id eq '7'
          - tool: get_membership_details
            parameters:
              customer_id: CUS-10000002
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Plus membership upgrade
                description: Standard customer requests upgrade to TechHome Plus.
                status: open
                priority: normal
                type: incident
                requester_id: '7'
                assignee_id: '2'
          - tool: update_membership_status
            parameters:
              customer_id: CUS-10000002
              action: upgrade
              membership_type: plus
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '6'
              item:
                status: solved
    """
    assert_final_state_matches_golden(x, "sandbox_external_retail")
