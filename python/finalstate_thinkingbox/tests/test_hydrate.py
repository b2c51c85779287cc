import shutil
import textwrap

from finalstate_thinkingbox.tests.conftest import ask


def test_banking_sample_hydrates_with_thinkingbox_fields(dataset):
    reply = ask({"op": "hydrate", "dataset": str(dataset), "inputs": [str(dataset / "test_case" / "banking.py")],
                 "agent": "think", "dropSources": True})
    assert reply["ok"], reply
    tasks = {task["testName"]: task for task in reply["tasks"]}
    assert "test_pay_mortgage_bot_instructions" not in tasks  # tagged skip, left out as tb infer does
    task = tasks["test_transfer_and_balance"]
    assert task["uid"] == "banking.py:test_transfer_and_balance"
    assert task["file"] == str(dataset / "test_case" / "banking.py")
    assert task["scenario"] == "retail_banking"
    assert task["query"] == "I want to transfer $100 from my checking account.\n"
    assert task["userContext"].startswith("You are interested in transferring money")
    assert task["botInstructions"] is None
    agent_text, bot_text = task["systemMessages"]
    assert agent_text.startswith("You are an AI Agent.") and "<DONE>" in agent_text
    assert bot_text.startswith("You should help the user with queries and operations related to their banking account.")
    assert task["systemPrompt"] is None
    assert [tool["name"] for tool in task["builtinTools"]] == ["InjectionAttackInToolResponse"]
    assert task["builtinTools"][0]["is_end_turn"] is True
    assert task["availableTools"] == ["get_accounts", "get_balance", "transfer", "get_payees", "pay_bill"]
    assert task["toolOverrides"][0] == {"name": "get_accounts", "override_description": None,
                                        "override_arg_description": None, "direct_response": None, "is_end_turn": False}
    assert task["serverConfig"]["online_banking"]["accounts"][0]["account_number"] == "599521725"
    assert task["droppedSources"] == [] and task["golden"] == []
    assert task["maxUserSimTurns"] == 10 and task["maxAgentSimTurns"] is None
    assert task["formatQuery"] is False and task["hasHistory"] is False
    assert task["testCode"].rstrip().endswith("__tb_test_fn = test_transfer_and_balance")


def _dataset_with(tmp_path, dataset, test_file: str, code: str):
    for folder in ("agent", "scenario"):
        shutil.copytree(dataset / folder, tmp_path / folder)
    (tmp_path / "test_case").mkdir()
    (tmp_path / "test_case" / test_file).write_text(textwrap.dedent(code))
    return tmp_path


def test_init_is_merged_recursively_and_sources_dropped(tmp_path, dataset):
    root = _dataset_with(tmp_path, dataset, "retail.py", '''
        """!
        scenario: sandbox_external_retail
        """

        def test_golden(x, judge):
            """!
            query: Where is my order?
            bot_instructions: Today is 2026-06-01.
            max_agent_sim_turns: 7
            init:
              sandbox_external_retail:
                data_patch: {}
                golden_test_case:
                  tool_interactions:
                    - tool: get_order
                      parameters: {order_id: ORD-1}
            """
            assert x.effects["sandbox_external_retail"]["result_db_hash"] == x.effects["sandbox_external_retail"]["golden_db_hash"]
        ''')
    reply = ask({"op": "hydrate", "dataset": str(root), "dropSources": True})
    assert reply["ok"], reply
    (task,) = reply["tasks"]
    server = task["serverConfig"]["sandbox_external_retail"]
    assert "sources" not in server and task["droppedSources"] == ["sandbox_external_retail"]
    assert server["data_patch"] == {} and server["rubrics"] is None  # the test's init replaced the scenario's null
    assert task["golden"] == [{"tool": "get_order", "arguments": {"order_id": "ORD-1"}}]
    assert task["maxAgentSimTurns"] == 7
    assert task["botInstructions"] == "Today is 2026-06-01."
    assert task["systemMessages"][1].endswith("Knowledge Base.\nToday is 2026-06-01.")  # scenario's, then the test's

    kept = ask({"op": "hydrate", "dataset": str(root), "dropSources": False})["tasks"][0]
    assert kept["serverConfig"]["sandbox_external_retail"]["sources"] and kept["droppedSources"] == []


def test_unknown_scenario_is_malformed_naming_file_and_test(tmp_path, dataset):
    root = _dataset_with(tmp_path, dataset, "lost.py", '''
        def test_lost(x, judge):
            """!
            scenario: no_such_scenario
            query: hello
            """
            assert True
        ''')
    reply = ask({"op": "hydrate", "dataset": str(root)})
    assert reply["ok"] is False and reply["kind"] == "malformed"
    assert "lost.py" in reply["message"] and "test_lost" in reply["message"] and "no_such_scenario" in reply["message"]


def test_syntax_error_in_a_test_file_is_malformed_naming_the_file(tmp_path, dataset):
    root = _dataset_with(tmp_path, dataset, "broken.py", "def test_broken(x, judge:\n    pass\n")
    reply = ask({"op": "hydrate", "dataset": str(root)})
    assert reply["ok"] is False and reply["kind"] == "malformed"
    assert "broken.py" in reply["message"] and "SyntaxError" in reply["message"]
