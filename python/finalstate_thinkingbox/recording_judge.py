"""ThinkingBox's Judge, noting each question a test body asks and the answer it got."""

from thinkingbox.common.judge import Judge


class RecordingJudge(Judge):
    """Records the test body's own calls only: text_yesno calls evaluate_bool inside, and that is one question."""

    def __init__(self, llm, judge_type: str = "legacy"):
        super().__init__(llm, judge_type=judge_type)
        self.asked: list[dict] = []
        self._depth = 0

    def _ask(self, question: str, ask):
        self._depth += 1
        try:
            answer = ask()
        finally:
            self._depth -= 1
        if self._depth == 0:
            verdict = answer.get("answer") if isinstance(answer, dict) else answer
            self.asked.append({"question": question, "answer": bool(verdict)})
        return answer

    def text_yesno(self, text: str, question: str) -> bool:
        return self._ask(question, lambda: super(RecordingJudge, self).text_yesno(text, question))

    def text_yesno_with_motivation(self, text: str, question: str) -> dict:
        return self._ask(question, lambda: super(RecordingJudge, self).text_yesno_with_motivation(text, question))

    def compare_yesno(self, first: str, second: str, question: str) -> bool:
        return self._ask(question, lambda: super(RecordingJudge, self).compare_yesno(first, second, question))

    def yesno(self, question: str) -> bool:
        return self._ask(question, lambda: super(RecordingJudge, self).yesno(question))

    def evaluate_bool(self, system: str, user: str) -> bool:
        return self._ask(user, lambda: super(RecordingJudge, self).evaluate_bool(system, user))
