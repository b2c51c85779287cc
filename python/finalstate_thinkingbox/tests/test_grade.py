import textwrap

import pytest

from finalstate_thinkingbox.tests.conftest import ask

TRANSFER_EFFECTS = {"online_banking": {
    "transactions": [{"transaction_type": "transfer", "from_account": "599521725", "to_account": "843847393", "amount": 100.0}],
    "accounts": {
        "843847393": {"account_type": "savings", "account_number": "843847393", "balance": 5100.0},
        "599521725": {"account_type": "checking", "account_number": "599521725", "balance": 900.0},
    },
}}
MESSAGES = [
    {"T": "Text", "role": "user", "content": "I want to transfer $100 from my checking account."},
    {"T": "ParallelToolCall", "tool_calls": [{"T": "ToolCall", "name": "transfer", "id": "call_1",
                                              "arguments": {"from_account": "599521725", "to_account": "843847393", "amount": 100}}]},
    {"T": "ToolResponse", "name": "transfer", "id": "call_1", "content": '{"status": "ok"}'},
    {"T": "Text", "role": "assistant", "content": "Done: $100 moved to savings. <DONE>", "metadata": {"is_done": True}},
]
TOOL_CALLS = [{"tool_call": MESSAGES[1]["tool_calls"][0], "tool_response": MESSAGES[2]}]


@pytest.fixture(scope="module")
def transfer_test(dataset):
    reply = ask({"op": "hydrate", "dataset": str(dataset), "inputs": [str(dataset / "test_case" / "banking.py")]})
    return next(task for task in reply["tasks"] if task["testName"] == "test_transfer_and_balance")


def grade(test_code: str, effects=TRANSFER_EFFECTS, judge=None, messages=MESSAGES) -> dict:
    return ask({"op": "grade", "uid": "banking.py:test", "testCode": test_code, "messages": messages,
                "toolCalls": TOOL_CALLS, "effects": effects, "initResult": {"online_banking": {}}, "sessionId": "s-1",
                "judge": judge})


def body(code: str) -> str:
    return textwrap.dedent(code) + "\n__tb_test_fn = check\n"


def test_passing_body_without_judge_records_the_question_as_unjudged(transfer_test):
    reply = grade(transfer_test["testCode"])
    assert reply["ok"] and reply["result"] is True and reply["reward"] == 1.0, reply
    assert reply["isSystemError"] is False and reply["errorType"] is None
    assert reply["unjudged"] == ["Does the message confirm the transfer?"] and reply["judged"] == []
    assert reply["judgeUsage"] is None


def test_failed_assertion_is_a_failed_test(transfer_test):
    wrong = {"online_banking": {**TRANSFER_EFFECTS["online_banking"], "transactions": []}}
    reply = grade(transfer_test["testCode"], effects=wrong)
    assert reply["ok"] and reply["result"] is False and reply["reward"] == 0.0
    assert reply["isSystemError"] is False and reply["errorType"] == "AssertionError"
    assert 'assert x.effects["online_banking"].get("transactions", [])' in reply["lineContent"]


def test_other_exception_in_the_body_is_a_system_error():
    reply = grade(body('''
        def check(x, judge):
            print("looking at", x.response)
            assert not_defined_anywhere
        '''))
    assert reply["ok"] and reply["result"] is False and reply["isSystemError"] is True
    assert reply["errorType"] == "NameError" and "not_defined_anywhere" in reply["tb"]
    assert reply["prints"] == "looking at Done: $100 moved to savings. <DONE>\n"


def test_context_is_thinkingbox_s_make_test_context():
    reply = grade(body('''
        def check(x, judge):
            assert x.response == "Done: $100 moved to savings. <DONE>"
            assert x.tool_direct_responses == ["Your balance is 5"]
            assert [c.tool_call.name for c in x.tool_calls] == ["transfer"]
            assert x.session_id == "s-1" and x.init_result == {"online_banking": {}}
            assert x.query() == "I want to transfer $100 from my checking account."
            return 0.25
        '''), messages=[*MESSAGES[:3], {"T": "Text", "role": "assistant", "content": "Your balance is 5", "metadata": {"tag": "direct"}},
                        {"T": "Text", "role": "assistant", "content": "thinking", "metadata": {"tag": "think"}}, MESSAGES[3]])
    assert reply["ok"] and reply["result"] is True and reply["reward"] == 0.25, reply


def test_judge_on_a_closed_port_is_unreachable_not_a_failed_test(transfer_test, closed_port):
    reply = grade(transfer_test["testCode"], judge={"baseUrl": f"http://127.0.0.1:{closed_port}", "model": "m"})
    assert reply["ok"] is False and reply["kind"] == "judge_unreachable", reply


def test_judge_answering_500_is_unreachable_even_when_the_body_catches_it(chat_server):
    server = chat_server(lambda request: 503)
    reply = grade(body('''
        def check(x, judge):
            try:
                judge.yesno("Is it?")
            except Exception:
                pass
        '''), judge=server.endpoint())
    assert reply["ok"] is False and reply["kind"] == "judge_unreachable" and "503" in reply["message"]


def test_judge_at_an_endpoint_answers_with_thinkingbox_s_yes_no_rule(transfer_test, chat_server):
    server = chat_server(lambda request: "Yes." if "transfer" in request["messages"][-1]["content"] else "No")
    reply = grade(transfer_test["testCode"], judge=server.endpoint(apiKey="k", seed=3, temperature=0.0))
    assert reply["ok"] and reply["result"] is True, reply
    assert reply["judged"] == [{"question": "Does the message confirm the transfer?", "answer": True}] and reply["unjudged"] == []
    assert reply["judgeUsage"] == {"calls": 1, "input_tokens": 11, "output_tokens": 1}
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions" and request["authorization"] == "Bearer k"
    assert request["body"]["model"] == "judge-model" and request["body"]["seed"] == 3 and request["body"]["temperature"] == 0.0
    system, user = request["body"]["messages"]
    assert system["role"] == "system" and system["content"].startswith("You are a judge")
    assert user["content"].startswith("<message>\nDone: $100 moved to savings. &lt;DONE&gt;\n</message>\n")

    no = chat_server(lambda request: "NO")
    reply = grade(transfer_test["testCode"], judge={**no.endpoint(), "baseUrl": no.base_url + "/v1"})
    assert reply["ok"] and reply["result"] is False and reply["isSystemError"] is False
    assert reply["judged"] == [{"question": "Does the message confirm the transfer?", "answer": False}]
