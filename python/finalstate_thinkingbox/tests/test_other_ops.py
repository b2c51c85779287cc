from finalstate_thinkingbox.tests.conftest import ask

GET_ORDER = {"name": "get_order", "description": "Fetch an order.",
             "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string", "description": "The id"}}}}
HISTORY = [
    {"T": "Text", "role": "user", "content": "Where is my order ORD-1?"},
    {"T": "ParallelToolCall", "tool_calls": [{"T": "ToolCall", "name": "get_order", "id": "call_1", "arguments": {"order_id": "ORD-1"}}]},
    {"T": "ToolResponse", "name": "get_order", "id": "call_1", "content": '{"status": "shipped"}'},
    {"T": "Text", "role": "assistant", "content": "It has shipped. Anything else?"},
]


def test_apply_tool_overrides_uses_thinkingbox_s_update():
    reply = ask({"op": "apply_tool_overrides", "tools": [GET_ORDER, {**GET_ORDER, "name": "untouched"}], "overrides": [
        {"name": "get_order", "override_description": "Look up an order.", "override_arg_description": {"order_id": "Order number"},
         "direct_response": "Status: {status}", "is_end_turn": True}]})
    assert reply["ok"], reply
    changed, untouched = reply["tools"]
    assert changed == {"name": "get_order", "description": "Look up an order.", "direct_response": "Status: {status}", "is_end_turn": True,
                       "input_schema": {"type": "object", "properties": {"order_id": {"type": "string", "description": "Order number"}}}}
    assert untouched["description"] == "Fetch an order." and untouched["direct_response"] is None


def test_direct_response_formats_the_answer_as_thinkingbox_does():
    ok = ask({"op": "direct_response", "tool": "get_order", "result": '{"status": "shipped", "eta": 2}',
              "template": "Your order has {status}; {eta} days to go."})
    assert ok == {"ok": True, "content": '{"status": "shipped", "eta": 2}',
                  "directResponse": "Your order has shipped; 2 days to go."}
    # an answer that does not fit the template: ThinkingBox's error text for the agent, nothing forwarded
    for result, template in [('{"status": "shipped"}', "{missing}"), ("not json", "Status: {status}")]:
        failed = ask({"op": "direct_response", "tool": "get_order", "result": result, "template": template})
        assert failed == {"ok": True, "content": "Error in function execution", "directResponse": None}


def test_agent_request_is_the_aoai_session_body():
    tool = {"name": "get_order", "description": "Fetch an order.", "input_schema": GET_ORDER["inputSchema"]}
    reply = ask({"op": "agent_request", "systemMessages": ["You are an agent.", "Bank rules."], "messages": HISTORY, "tools": [tool]})
    assert reply["ok"], reply
    assert reply["messages"] == [
        {"role": "system", "content": "You are an agent."},
        {"role": "system", "content": "Bank rules."},
        {"role": "user", "content": "Where is my order ORD-1?"},
        {"role": "assistant", "tool_calls": [{"function": {"arguments": '{"order_id": "ORD-1"}', "name": "get_order"}, "id": "call_1", "type": "function"}]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "shipped"}'},
        {"role": "assistant", "content": "It has shipped. Anything else?"},
    ]
    assert reply["tools"] == [{"type": "function", "function": {"name": "get_order", "description": "Fetch an order.",
                                                                "parameters": {**GET_ORDER["inputSchema"], "additionalProperties": False}}}]
    assert reply["body"]["parallel_tool_calls"] is False and reply["body"]["model"] == "agent"
    single = ask({"op": "agent_request", "systemPrompt": "Only this.", "messages": HISTORY[:1], "tools": []})
    assert single["messages"][0] == {"role": "system", "content": "Only this."} and "tools" not in single["body"]


def test_simulate_user_with_thinkingbox_s_user_simulator(chat_server):
    server = chat_server(lambda request: '"Thanks, that solves it. <DONE>"')
    reply = ask({"op": "simulate_user", "userContext": "Your order is ORD-1.", "messages": HISTORY,
                 "endpoint": server.endpoint(), "canEndConversation": True})
    assert reply["ok"], reply
    assert reply["message"]["T"] == "Text" and reply["message"]["role"] == "user"
    assert reply["message"]["content"] == "Thanks, that solves it. <DONE>"
    assert reply["isDone"] is True and reply["message"]["metadata"]["is_user_llm"] is True
    assert reply["usage"]["input_tokens"] == 11
    system, user = server.requests[0]["body"]["messages"]
    assert "You are the USER" in system["content"] and "<DONE>" in system["content"]
    assert "USER_CONTEXT:\nYour order is ORD-1." in user["content"] and "LAST_ASSISTANT_MESSAGE:\nIt has shipped." in user["content"]
    assert "max_tokens" not in server.requests[0]["body"]


def test_simulate_user_is_cut_at_the_endpoint_s_max_tokens(chat_server):
    # a model that never stops (SmolLM2 on vLLM rambled on to its 16k positions) is bounded by the campaign's setting
    server = chat_server(lambda request: '"Please cancel it."')
    reply = ask({"op": "simulate_user", "userContext": "Cancel ORD-1.", "messages": HISTORY,
                 "endpoint": server.endpoint(maxTokens=32), "canEndConversation": True})
    assert reply["ok"], reply
    assert server.requests[0]["body"]["max_tokens"] == 32


def test_simulate_user_on_a_closed_port_is_unreachable(closed_port):
    reply = ask({"op": "simulate_user", "userContext": None, "messages": HISTORY, "canEndConversation": False,
                 "endpoint": {"baseUrl": f"http://127.0.0.1:{closed_port}", "model": "m"}})
    assert reply["ok"] is False and reply["kind"] == "user_unreachable"


def test_ping_names_thinkingbox():
    reply = ask({"op": "ping"})
    assert reply["ok"] and reply["thinkingbox"]["version"] and reply["thinkingbox"]["fastmcp"].startswith("3.")


def test_bad_requests():
    assert ask({"op": "nope"})["kind"] == "unknown_op"
    assert ask({"op": "grade"})["kind"] == "bad_request"
