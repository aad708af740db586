"""bleuscore scores an empty prediction against an empty reference (1.0 with smooth=True) where its docstring says
empty inputs raise an assertion error. Draft report: bleuscore-both-empty-smoothed.md."""

import bleuscore

DISTRIBUTION = "bleuscore"
#: "Empty inputs will raise an assertion error (fail-fast principle)".
DOCUMENTED = "AssertionError"


def reproduce():
    return bleuscore.compute([[""]], [""], max_order=1, smooth=True)["bleu"]


if __name__ == "__main__":
    print(reproduce())
