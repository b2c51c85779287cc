# Finalstate training tasks for the ThinkingBox scenario `external_booking_v1`.
# Written for the finalstate project (not from ThinkingBox-Bench). Graded like the
# business-ops servers grade: the final database hash must equal the hash of the
# golden state (seed + data_patch + the golden tool calls below).

from thinkingbox.common import Judge, TestContext

"""!
scenario: external_booking_v1
"""


def assert_final_state_matches_golden(x: TestContext, server: str):
    fx = x.effects[server]
    assert "result_db_hash" in fx, f"get_effects failed: {str(fx)[:500]}"
    assert fx["result_db_hash"] == fx["golden_db_hash"], (
        f"final state differs from the golden state: {fx['diff']}"
    )


def test_accessible_room_request_premium_hotel(x: TestContext, judge: Judge):
    """!
    query: Hi, I have a booking at Harborview Suites in Boston later this month. My husband uses a wheelchair
      now, so we need an accessible room with a roll-in shower. Can you add that to the reservation?
    user_context: You are Megan Walsh, email megan.walsh@gmail.com. Your booking reference is BKG-00031001
      (Harborview Suites, Boston, October 20-23, 2025, 2 adults). Your husband uses a wheelchair; you need
      a wheelchair-accessible room with a roll-in shower noted on the booking. You do not want to change anything
      else (dates, room category, meal plan stay the same). Confirm when asked.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.5.2 Special Accommodation Requests): accessibility accommodations
      are free of charge and always honored if requested at least 24h in advance. Check the hotel''s accessible_rooms_available,
      add the request to booking.special_requests (keep existing requests), set request_type_detail add-special-request
      and resolution_action modification-completed, then solve the ticket. Ticket conventions: every ticket
      is created with status open and assignee_id AG-83945, then set to its final status. On the ticket, booking_value
      is the booking''s value after any change you make, check_in_date is copied from the booking (only for
      modification/special-request/cancellation tickets), and refund_amount is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'megan.walsh@gmail.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031001'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031001
          - tool: crm_api_get_customer_profile
            parameters:
              email: megan.walsh@gmail.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031001
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Accessibility request - BKG-00031001
                description: Accessibility request - BKG-00031001
                status: open
                priority: normal
                type: task
                requester_id: USR-20000001
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                booking_reference: BKG-00031001
                hotel_id: HTL-00031001
                booking_value: 660.0
                request_type_detail: add-special-request
                check_in_date: '2025-10-20T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031001
              special_requests:
              - Wheelchair-accessible room with roll-in shower
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: modification-completed
                refund_amount: 0.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_add_child_to_booking(x: TestContext, judge: Judge):
    """!
    query: Hello, we're bringing our younger daughter along to Chicago after all. Can you add a second child
      to our reservation?
    user_context: You are Carlos Mendez, email carlos.mendez@outlook.com. Your booking reference is BKG-00031002
      (Lakeshore Inn, Chicago, October 15-17, 2025). It is currently for 2 adults and 1 child. You want to
      add your second daughter (age 6), making it 2 adults and 2 children in the same standard room. No other
      changes. Confirm when asked.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.1 Booking Modifications): a guest-count change is request_type_detail
      modify-guests. Modifications requested at least 168 hours (7 days) before check-in carry no modification
      fee. A standard_room holds up to 2 adults and 2 children. After the change, set resolution_action modification-completed
      and solve the ticket. Ticket conventions: every ticket is created with status open and assignee_id AG-83945,
      then set to its final status. On the ticket, booking_value is the booking''s value after any change
      you make, check_in_date is copied from the booking (only for modification/special-request/cancellation
      tickets), and refund_amount is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'carlos.mendez@outlook.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031002'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031002
          - tool: crm_api_get_customer_profile
            parameters:
              email: carlos.mendez@outlook.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031002
          - tool: booking_api_check_hotel_availability
            parameters:
              hotel_id: HTL-00031002
              check_in_date: '2025-10-15T15:00:00Z'
              check_out_date: '2025-10-17T11:00:00Z'
              room_type: standard_room
              board_type: without_breakfast
              adults_count: 2
              children_count: 2
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Guest count change - BKG-00031002
                description: Guest count change - BKG-00031002
                status: open
                priority: normal
                type: task
                requester_id: USR-20000002
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                booking_reference: BKG-00031002
                hotel_id: HTL-00031002
                booking_value: 280.0
                request_type_detail: modify-guests
                check_in_date: '2025-10-15T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031002
              children_count: 2
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: modification-completed
                refund_amount: 0.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_late_cancellation_premium_no_refund(x: TestContext, judge: Judge):
    """!
    query: I need to cancel my Boston hotel for tomorrow, a family emergency came up. Please cancel it.
    user_context: You are Olivia Grant, email olivia.grant@yahoo.com. Your booking reference is BKG-00031003
      (Harborview Suites, Boston, check-in October 2, 2025 at noon, 2 nights). A family emergency means you
      cannot travel. You want the booking cancelled even if there is no refund; if told there is no refund,
      accept it and still confirm the cancellation.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.2 Cancellations & Refunds): premium partner hotels have a 24-hour
      cancellation window: cancelled at least 24 hours before check-in = 100% refund minus the $15 service
      fee; less than 24 hours before check-in = no refund. A cancellation with a $0 refund due to timing uses
      resolution_action modification-completed; set request_type_detail cancel-booking. Cancel by setting
      booking_status to cancelled; process a refund only if the amount is above $0. Ticket conventions: every
      ticket is created with status open and assignee_id AG-83945, then set to its final status. On the ticket,
      booking_value is the booking''s value after any change you make, check_in_date is copied from the booking
      (only for modification/special-request/cancellation tickets), and refund_amount is the amount refunded
      (0 if none).'
    tags:
      labels:
      - difficulty:easy
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'olivia.grant@yahoo.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031003'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031003
          - tool: crm_api_get_customer_profile
            parameters:
              email: olivia.grant@yahoo.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031001
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancellation request - BKG-00031003
                description: Cancellation request - BKG-00031003
                status: open
                priority: high
                type: task
                requester_id: USR-20000003
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-24h
                booking_reference: BKG-00031003
                hotel_id: HTL-00031001
                booking_value: 480.0
                request_type_detail: cancel-booking
                check_in_date: '2025-10-02T12:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031003
              booking_status: cancelled
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: modification-completed
                refund_amount: 0.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_add_breakfast_price_difference(x: TestContext, judge: Judge):
    """!
    query: Hi! I'd like to add breakfast to my Chicago stay in October. What would that cost?
    user_context: You are Samuel Osei, email samuel.osei@gmail.com. Your booking reference is BKG-00031004
      (Lakeshore Inn, Chicago, October 12-15, 2025, deluxe room, currently without breakfast). You want to
      switch the meal plan to include breakfast (with_breakfast). You accept the price difference of up to
      $100. Confirm when asked.
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (4.1 Booking Modifications): a meal plan change is request_type_detail
      modify-board-type. Modifications requested at least 168 hours (7 days) before check-in carry no modification
      fee. Check availability, execute the modification, and if the new booking_value is higher, charge the
      difference with payment_api_process_charge (reason price_difference) and tell the customer the amount.
      Then set resolution_action modification-completed and solve the ticket. Ticket conventions: every ticket
      is created with status open and assignee_id AG-83945, then set to its final status. On the ticket, booking_value
      is the booking''s value after any change you make, check_in_date is copied from the booking (only for
      modification/special-request/cancellation tickets), and refund_amount is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'samuel.osei@gmail.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031004'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031004
          - tool: crm_api_get_customer_profile
            parameters:
              email: samuel.osei@gmail.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031002
          - tool: booking_api_check_hotel_availability
            parameters:
              hotel_id: HTL-00031002
              check_in_date: '2025-10-12T15:00:00Z'
              check_out_date: '2025-10-15T11:00:00Z'
              room_type: deluxe_room
              board_type: with_breakfast
              adults_count: 2
              children_count: 0
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Meal plan change - BKG-00031004
                description: Meal plan change - BKG-00031004
                status: open
                priority: normal
                type: task
                requester_id: USR-20000004
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                booking_reference: BKG-00031004
                hotel_id: HTL-00031002
                booking_value: 525.0
                request_type_detail: modify-board-type
                check_in_date: '2025-10-12T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031004
              board_type: with_breakfast
          - tool: payment_api_process_charge
            parameters:
              booking_reference: BKG-00031004
              charge_amount: 75.0
              reason: price_difference
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: modification-completed
                refund_amount: 0.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_cancel_budget_hotel_75_percent(x: TestContext, judge: Judge):
    """!
    query: Hi, I have to cancel my Phoenix booking this weekend. How much will I get back?
    user_context: You are Rachel Kim, email rachel.kim@icloud.com. Your booking reference is BKG-00031005
      (Desert Star Motel, Phoenix, October 5-8, 2025, $360). Your trip was called off. You want to cancel
      and accept whatever refund policy allows. Confirm the cancellation when asked.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.2 Cancellations & Refunds): budget partner hotels use a 7-day policy:
      at least 168h before check-in 100%, 48h to <168h 75%, 24h to <48h 50%, <24h 0%. refund_amount = booking_value
      x refund% - $15 service fee (fee only when refund% > 0). Cancel by setting booking_status to cancelled,
      then process the refund with reason cancellation. A partial refund (<100% of booking_value) uses resolution_action
      refund-partial; request_type_detail cancel-booking. Ticket conventions: every ticket is created with
      status open and assignee_id AG-83945, then set to its final status. On the ticket, booking_value is
      the booking''s value after any change you make, check_in_date is copied from the booking (only for modification/special-request/cancellation
      tickets), and refund_amount is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'rachel.kim@icloud.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031005'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031005
          - tool: crm_api_get_customer_profile
            parameters:
              email: rachel.kim@icloud.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031003
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancellation request - BKG-00031005
                description: Cancellation request - BKG-00031005
                status: open
                priority: normal
                type: task
                requester_id: USR-20000005
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                booking_reference: BKG-00031005
                hotel_id: HTL-00031003
                booking_value: 360.0
                request_type_detail: cancel-booking
                check_in_date: '2025-10-05T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031005
              booking_status: cancelled
          - tool: payment_api_process_refund
            parameters:
              booking_reference: BKG-00031005
              refund_amount: 255.0
              reason: cancellation
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: refund-partial
                refund_amount: 255.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_post_stay_service_complaint(x: TestContext, judge: Judge):
    """!
    query: I checked out of the Lakeshore Inn yesterday and I'm really disappointed. The pool and gym were
      closed the whole time with no notice and the front desk staff were rude every time we asked for help.
      I'd like some compensation.
    user_context: You are Brian Foster, email brian.foster@gmail.com. Your booking reference is BKG-00031006
      (Lakeshore Inn, Chicago, September 28-30, 2025, 2 nights, $300). You checked out on September 30. The
      pool and gym were closed for your entire stay without notice, and the front desk staff were rude. The
      room itself was fine. This is your first complaint. You accept the compensation offered.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.4 Post-Stay Issues): service complaints (staff service, amenities
      unavailable, noise) reported within 48 hours of checkout by standard/vip customers get 50% of the affected
      nights'' value (all nights affected unless stated otherwise); no hotel escalation is needed when complaint_count
      < 3 and the complaint clearly fits the table. Process the refund with reason post_stay_compensation,
      then increment the customer''s complaint_count by 1 in the CRM. Ticket: type task, request_type_detail
      post-stay-issue, resolution_action refund-partial. Ticket conventions: every ticket is created with
      status open and assignee_id AG-83945, then set to its final status. On the ticket, booking_value is
      the booking''s value after any change you make, check_in_date is copied from the booking (only for modification/special-request/cancellation
      tickets), and refund_amount is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:medium
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'brian.foster@gmail.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031006'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031006
          - tool: crm_api_get_customer_profile
            parameters:
              email: brian.foster@gmail.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031002
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Post-stay service complaint - BKG-00031006
                description: Post-stay service complaint - BKG-00031006
                status: open
                priority: normal
                type: task
                requester_id: USR-20000006
                assignee_id: AG-83945
                tags:
                - b2c-customer
                booking_reference: BKG-00031006
                hotel_id: HTL-00031002
                booking_value: 300.0
                request_type_detail: post-stay-issue
          - tool: payment_api_process_refund
            parameters:
              booking_reference: BKG-00031006
              refund_amount: 150.0
              reason: post_stay_compensation
          - tool: crm_api_update_customer_info
            parameters:
              customer_id: CUS-00031006
              complaint_count: 1
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: refund-partial
                refund_amount: 150.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_platinum_cancel_budget_hotel_full_refund(x: TestContext, judge: Judge):
    """!
    query: Hello, I need to cancel my stay at the Desert Star Motel in Phoenix starting this Saturday. Please
      process the cancellation.
    user_context: You are Isabella Rossi, email isabella.rossi@protonmail.com. Your booking reference is BKG-00031007
      (Desert Star Motel, Phoenix, October 4-7, 2025, family room, $540). Your plans changed and you want
      to cancel. You are a long-time StayBridge customer. Confirm the cancellation when asked and accept the
      refund offered.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.2 Cancellations & Refunds): budget partner hotels use a 7-day policy:
      at least 168h before check-in 100%, 48h to <168h 75%, 24h to <48h 50%, <24h 0%; refund_amount = booking_value
      x refund% - $15 service fee. Platinum exception: vip_tier platinum AND at least 24 hours before check-in
      = 100% of booking_value, service fee waived, resolution_action refund-full. Cancel by setting booking_status
      to cancelled, then process the refund with reason cancellation; request_type_detail cancel-booking.
      Ticket conventions: every ticket is created with status open and assignee_id AG-83945, then set to its
      final status. On the ticket, booking_value is the booking''s value after any change you make, check_in_date
      is copied from the booking (only for modification/special-request/cancellation tickets), and refund_amount
      is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'isabella.rossi@protonmail.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031007'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031007
          - tool: crm_api_get_customer_profile
            parameters:
              email: isabella.rossi@protonmail.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031003
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Cancellation request - BKG-00031007
                description: Cancellation request - BKG-00031007
                status: open
                priority: normal
                type: task
                requester_id: USR-20000007
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                - vip-customer
                booking_reference: BKG-00031007
                hotel_id: HTL-00031003
                booking_value: 540.0
                request_type_detail: cancel-booking
                check_in_date: '2025-10-04T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031007
              booking_status: cancelled
          - tool: payment_api_process_refund
            parameters:
              booking_reference: BKG-00031007
              refund_amount: 540.0
              reason: cancellation
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: refund-full
                refund_amount: 540.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")
    assert judge.text_yesno(x.response, 'Does the response tell the customer that the full $540 will be refunded?')


def test_room_upgrade_budget_second_modification_fee(x: TestContext, judge: Judge):
    """!
    query: Hi, I'd like to upgrade my room in Phoenix this weekend from the standard room to a deluxe room.
    user_context: You are Nathan Brooks, email nathan.brooks@gmail.com. Your booking reference is BKG-00031008
      (Desert Star Motel, Phoenix, October 5-7, 2025, standard room without breakfast, 2 adults, $190). You
      already changed the booking once before (added a second adult). Now you want a deluxe room instead,
      same dates and meal plan. You accept a total extra charge of up to $150. Confirm when asked.
    max_user_sim_turns: 8
    bot_instructions: 'Policy excerpt (4.1 Booking Modifications): modification_fee = base_fee x hotel multiplier
      + surcharge. Base fee by time until check-in: >=168h $0; 48h to <168h $25; 24h to <48h $50; <24h $60.
      Multiplier: premium 0.5, standard 1.0, budget 1.5. Surcharge by previous entries in modification_history:
      0 -> $0, 1 -> +$15, 2 or more -> +$30. Execute the modification, then charge the price difference plus
      the modification fee as ONE combined charge with payment_api_process_charge (reason modification_fee_and_price_difference)
      and tell the customer the amounts. request_type_detail modify-room-type, resolution_action modification-completed.
      Ticket conventions: every ticket is created with status open and assignee_id AG-83945, then set to its
      final status. On the ticket, booking_value is the booking''s value after any change you make, check_in_date
      is copied from the booking (only for modification/special-request/cancellation tickets), and refund_amount
      is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'nathan.brooks@gmail.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031008'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031008
          - tool: crm_api_get_customer_profile
            parameters:
              email: nathan.brooks@gmail.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031003
          - tool: booking_api_check_hotel_availability
            parameters:
              hotel_id: HTL-00031003
              check_in_date: '2025-10-05T15:00:00Z'
              check_out_date: '2025-10-07T11:00:00Z'
              room_type: deluxe_room
              board_type: without_breakfast
              adults_count: 2
              children_count: 0
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Room type change - BKG-00031008
                description: Room type change - BKG-00031008
                status: open
                priority: normal
                type: task
                requester_id: USR-20000008
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-upcoming
                booking_reference: BKG-00031008
                hotel_id: HTL-00031003
                booking_value: 250.0
                request_type_detail: modify-room-type
                check_in_date: '2025-10-05T15:00:00Z'
          - tool: booking_api_modify_booking
            parameters:
              booking_reference: BKG-00031008
              room_type: deluxe_room
          - tool: payment_api_process_charge
            parameters:
              booking_reference: BKG-00031008
              charge_amount: 112.5
              reason: modification_fee_and_price_difference
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: solved
                resolution_action: modification-completed
                refund_amount: 0.0
    """
    assert_final_state_matches_golden(x, "external_booking_v1")


def test_same_day_upgrade_standard_hotel_escalation(x: TestContext, judge: Judge):
    """!
    query: Hi, I'm arriving at the Magnolia Court in Savannah this afternoon. Could I switch to a deluxe room
      for my stay?
    user_context: You are Aisha Khan, email aisha.khan@outlook.com. Your booking reference is BKG-00031009
      (Magnolia Court Hotel, Savannah, check-in today October 1, 2025 at 3 PM, check-out October 3, standard
      room with breakfast, 2 adults). You would like a deluxe room instead, same dates and meal plan. If told
      the hotel has to confirm first, accept that and wait for the follow-up; you do not want to cancel.
    max_user_sim_turns: 6
    bot_instructions: 'Policy excerpt (4.1.5 Same-Day Modification Process): when time until check-in is under
      24 hours at a standard or premium partner hotel and the customer''s vip_tier is standard, do NOT modify
      the booking yet: escalate to the hotel partner with hotel_partner_api_escalate_to_hotel (issue_type
      same-day-modification), then put the customer''s own ticket on hold with escalation_reason same-day-modification
      and resolution_action escalated-hotel. Fees and the change itself are processed only after the hotel
      confirms. Do not create a separate Zendesk ticket for the escalation. request_type_detail modify-room-type.
      Ticket conventions: every ticket is created with status open and assignee_id AG-83945, then set to its
      final status. On the ticket, booking_value is the booking''s value after any change you make, check_in_date
      is copied from the booking (only for modification/special-request/cancellation tickets), and refund_amount
      is the amount refunded (0 if none).'
    tags:
      labels:
      - difficulty:hard
      - finalstate
    init:
      external_booking_v1:
        data_patch:
          zendesk_users:
          - id: USR-20000001
            name: Megan Walsh
            email: megan.walsh@gmail.com
            role: end-user
            organization_id: null
            phone: +1-617-555-0101
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000002
            name: Carlos Mendez
            email: carlos.mendez@outlook.com
            role: end-user
            organization_id: null
            phone: +1-773-555-0102
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000003
            name: Olivia Grant
            email: olivia.grant@yahoo.com
            role: end-user
            organization_id: null
            phone: +1-857-555-0103
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000004
            name: Samuel Osei
            email: samuel.osei@gmail.com
            role: end-user
            organization_id: null
            phone: +1-312-555-0104
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000005
            name: Rachel Kim
            email: rachel.kim@icloud.com
            role: end-user
            organization_id: null
            phone: +1-480-555-0105
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000006
            name: Brian Foster
            email: brian.foster@gmail.com
            role: end-user
            organization_id: null
            phone: +1-847-555-0106
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000007
            name: Isabella Rossi
            email: isabella.rossi@protonmail.com
            role: end-user
            organization_id: null
            phone: +1-602-555-0107
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000008
            name: Nathan Brooks
            email: nathan.brooks@gmail.com
            role: end-user
            organization_id: null
            phone: +1-623-555-0108
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          - id: USR-20000009
            name: Aisha Khan
            email: aisha.khan@outlook.com
            role: end-user
            organization_id: null
            phone: +1-912-555-0109
            verified: true
            active: true
            created_at: '2024-05-01T00:00:00Z'
            updated_at: '2024-05-01T00:00:00Z'
          crm_api_customer_profiles:
          - id: CUS-00031001
            customer_id: CUS-00031001
            email: megan.walsh@gmail.com
            full_name: Megan Walsh
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1840.00'
            total_bookings_count: 4
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031002
            customer_id: CUS-00031002
            email: carlos.mendez@outlook.com
            full_name: Carlos Mendez
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '920.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031003
            customer_id: CUS-00031003
            email: olivia.grant@yahoo.com
            full_name: Olivia Grant
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1310.00'
            total_bookings_count: 5
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031004
            customer_id: CUS-00031004
            email: samuel.osei@gmail.com
            full_name: Samuel Osei
            vip_tier: vip
            loyalty_program_status: member
            lifetime_value: '7420.00'
            total_bookings_count: 19
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031005
            customer_id: CUS-00031005
            email: rachel.kim@icloud.com
            full_name: Rachel Kim
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '610.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031006
            customer_id: CUS-00031006
            email: brian.foster@gmail.com
            full_name: Brian Foster
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '1150.00'
            total_bookings_count: 6
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031007
            customer_id: CUS-00031007
            email: isabella.rossi@protonmail.com
            full_name: Isabella Rossi
            vip_tier: platinum
            loyalty_program_status: platinum-elite
            lifetime_value: '38250.00'
            total_bookings_count: 61
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031008
            customer_id: CUS-00031008
            email: nathan.brooks@gmail.com
            full_name: Nathan Brooks
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '540.00'
            total_bookings_count: 2
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: CUS-00031009
            customer_id: CUS-00031009
            email: aisha.khan@outlook.com
            full_name: Aisha Khan
            vip_tier: standard
            loyalty_program_status: member
            lifetime_value: '880.00'
            total_bookings_count: 3
            preferences: []
            special_notes: []
            complaint_count: 0
            last_booking_date: '2025-08-15T10:00:00Z'
            created_at: '2024-03-01T00:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          hotel_partner_api_hotels:
          - id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: &id001
            - pool
            - gym
            - spa
            - restaurant
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: &id002
            - wifi
            - gym
            - pool
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: &id003
            - wifi
            - parking
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: &id004
            - wifi
            - restaurant
            - parking
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          booking_api_bookings:
          - id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id005 []
            special_requests: &id006 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id007 []
            special_requests: &id008 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id009 []
            special_requests: &id010 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id011 []
            special_requests: &id012 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id013 []
            special_requests: &id014 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id015 []
            special_requests: &id016 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id017 []
            special_requests: &id018 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id019
            - '2025-09-20T10:00:00Z: adults_count: 1 -> 2'
            special_requests: &id020 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: &id021 []
            special_requests: &id022 []
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          booking_api_hotel_inventory:
          - id: INV-00030001
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030002
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030003
            hotel_id: HTL-00031001
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030004
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-20T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030005
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-21T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030006
            hotel_id: HTL-00031001
            room_type: accessible_room
            board_type: with_breakfast
            date: '2025-10-22T00:00:00Z'
            available_count: 4
            price_per_night: '220.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030007
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-15T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030008
            hotel_id: HTL-00031002
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-16T00:00:00Z'
            available_count: 4
            price_per_night: '140.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030009
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030010
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030011
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '150.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030012
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-12T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030013
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-13T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030014
            hotel_id: HTL-00031002
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-14T00:00:00Z'
            available_count: 4
            price_per_night: '175.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030015
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030016
            hotel_id: HTL-00031003
            room_type: standard_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '95.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030017
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-05T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030018
            hotel_id: HTL-00031003
            room_type: deluxe_room
            board_type: without_breakfast
            date: '2025-10-06T00:00:00Z'
            available_count: 4
            price_per_night: '125.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030019
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030020
            hotel_id: HTL-00031004
            room_type: standard_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '160.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030021
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-01T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - id: INV-00030022
            hotel_id: HTL-00031004
            room_type: deluxe_room
            board_type: with_breakfast
            date: '2025-10-02T00:00:00Z'
            available_count: 4
            price_per_night: '205.00'
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          payment_api_transactions:
          - id: TXN-00030001
            transaction_id: TXN-00030001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            amount: '660.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 4417
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030002
            transaction_id: TXN-00030002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            amount: '280.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 2290
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030003
            transaction_id: TXN-00030003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            amount: '480.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 8812
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030004
            transaction_id: TXN-00030004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            amount: '450.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 3005
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030005
            transaction_id: TXN-00030005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            amount: '360.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 6671
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030006
            transaction_id: TXN-00030006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            amount: '300.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Mastercard ending in 1184
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030007
            transaction_id: TXN-00030007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            amount: '540.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Amex ending in 7720
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030008
            transaction_id: TXN-00030008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            amount: '190.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 5093
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - id: TXN-00030009
            transaction_id: TXN-00030009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            amount: '320.00'
            currency: USD
            transaction_type: charge
            payment_status: successful
            payment_method: Visa ending in 3358
            reason: null
            processing_time_estimate: null
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          lookup_hotels:
          - table_name: hotels
            id: HTL-00031001
            hotel_id: HTL-00031001
            hotel_name: Harborview Suites
            location: Boston
            partner_tier: premium
            contact_name: Grace Donnelly
            contact_email: frontdesk@harborviewsuites.com
            contact_phone: +1-617-555-0140
            escalation_contact: null
            amenities: *id001
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031002
            hotel_id: HTL-00031002
            hotel_name: Lakeshore Inn
            location: Chicago
            partner_tier: standard
            contact_name: Victor Salas
            contact_email: contact@lakeshoreinn.com
            contact_phone: +1-312-555-0182
            escalation_contact: null
            amenities: *id002
            supports_pets: false
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031003
            hotel_id: HTL-00031003
            hotel_name: Desert Star Motel
            location: Phoenix
            partner_tier: budget
            contact_name: Dana Whitaker
            contact_email: info@desertstarmotel.com
            contact_phone: +1-602-555-0117
            escalation_contact: null
            amenities: *id003
            supports_pets: false
            accessible_rooms_available: false
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          - table_name: hotels
            id: HTL-00031004
            hotel_id: HTL-00031004
            hotel_name: Magnolia Court Hotel
            location: Savannah
            partner_tier: standard
            contact_name: Louis Fairbanks
            contact_email: reservations@magnoliacourt.com
            contact_phone: +1-912-555-0163
            escalation_contact: null
            amenities: *id004
            supports_pets: true
            accessible_rooms_available: true
            created_at: '2025-01-01T10:00:00Z'
            updated_at: '2025-01-01T10:00:00Z'
          lookup_bookings:
          - table_name: bookings
            id: BKG-00031001
            booking_reference: BKG-00031001
            customer_id: CUS-00031001
            hotel_id: HTL-00031001
            check_in_date: '2025-10-20T15:00:00Z'
            check_out_date: '2025-10-23T11:00:00Z'
            booking_value: '660.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id005
            special_requests: *id006
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031002
            booking_reference: BKG-00031002
            customer_id: CUS-00031002
            hotel_id: HTL-00031002
            check_in_date: '2025-10-15T15:00:00Z'
            check_out_date: '2025-10-17T11:00:00Z'
            booking_value: '280.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 1
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id007
            special_requests: *id008
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031003
            booking_reference: BKG-00031003
            customer_id: CUS-00031003
            hotel_id: HTL-00031001
            check_in_date: '2025-10-02T12:00:00Z'
            check_out_date: '2025-10-04T11:00:00Z'
            booking_value: '480.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id009
            special_requests: *id010
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031004
            booking_reference: BKG-00031004
            customer_id: CUS-00031004
            hotel_id: HTL-00031002
            check_in_date: '2025-10-12T15:00:00Z'
            check_out_date: '2025-10-15T11:00:00Z'
            booking_value: '450.00'
            room_type: deluxe_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id011
            special_requests: *id012
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031005
            booking_reference: BKG-00031005
            customer_id: CUS-00031005
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-08T11:00:00Z'
            booking_value: '360.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id013
            special_requests: *id014
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031006
            booking_reference: BKG-00031006
            customer_id: CUS-00031006
            hotel_id: HTL-00031002
            check_in_date: '2025-09-28T15:00:00Z'
            check_out_date: '2025-09-30T11:00:00Z'
            booking_value: '300.00'
            room_type: deluxe_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: checked_out
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id015
            special_requests: *id016
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031007
            booking_reference: BKG-00031007
            customer_id: CUS-00031007
            hotel_id: HTL-00031003
            check_in_date: '2025-10-04T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '540.00'
            room_type: family_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 2
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id017
            special_requests: *id018
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031008
            booking_reference: BKG-00031008
            customer_id: CUS-00031008
            hotel_id: HTL-00031003
            check_in_date: '2025-10-05T15:00:00Z'
            check_out_date: '2025-10-07T11:00:00Z'
            booking_value: '190.00'
            room_type: standard_room
            board_type: without_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id019
            special_requests: *id020
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
          - table_name: bookings
            id: BKG-00031009
            booking_reference: BKG-00031009
            customer_id: CUS-00031009
            hotel_id: HTL-00031004
            check_in_date: '2025-10-01T15:00:00Z'
            check_out_date: '2025-10-03T11:00:00Z'
            booking_value: '320.00'
            room_type: standard_room
            board_type: with_breakfast
            adults_count: 2
            children_count: 0
            booking_status: confirmed
            corporate_account_id: null
            group_booking_id: null
            modification_history: *id021
            special_requests: *id022
            created_at: '2025-08-15T10:00:00Z'
            updated_at: '2025-08-15T10:00:00Z'
        golden_test_case:
          tool_interactions:
          - tool: zendesk_get_items
            parameters:
              table: users
              $filter: email eq 'aisha.khan@outlook.com'
          - tool: zendesk_get_items
            parameters:
              table: tickets
              $filter: booking_reference eq 'BKG-00031009'
          - tool: booking_api_get_booking
            parameters:
              booking_reference: BKG-00031009
          - tool: crm_api_get_customer_profile
            parameters:
              email: aisha.khan@outlook.com
          - tool: hotel_partner_api_get_hotel_info
            parameters:
              hotel_id: HTL-00031004
          - tool: booking_api_check_hotel_availability
            parameters:
              hotel_id: HTL-00031004
              check_in_date: '2025-10-01T15:00:00Z'
              check_out_date: '2025-10-03T11:00:00Z'
              room_type: deluxe_room
              board_type: with_breakfast
              adults_count: 2
              children_count: 0
          - tool: zendesk_create_item
            parameters:
              table: tickets
              item:
                subject: Same-day room change - BKG-00031009
                description: Same-day room change - BKG-00031009
                status: open
                priority: urgent
                type: task
                requester_id: USR-20000009
                assignee_id: AG-83945
                tags:
                - b2c-customer
                - check-in-today
                - hotel-partner-escalation
                booking_reference: BKG-00031009
                hotel_id: HTL-00031004
                booking_value: 320.0
                request_type_detail: modify-room-type
                check_in_date: '2025-10-01T15:00:00Z'
          - tool: hotel_partner_api_escalate_to_hotel
            parameters:
              hotel_id: HTL-00031004
              booking_reference: BKG-00031009
              issue_type: same-day-modification
              description: Guest Aisha Khan (BKG-00031009) arriving today requests a change from standard_room
                to deluxe_room with breakfast for Oct 1-3. Please confirm availability.
          - tool: zendesk_update_item
            parameters:
              table: tickets
              id: '13'
              item:
                status: hold
                resolution_action: escalated-hotel
                refund_amount: 0.0
                escalation_reason: same-day-modification
    """
    assert_final_state_matches_golden(x, "external_booking_v1")
