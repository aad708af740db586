"""`bleu-oracle doctor` as a library: explain any BLEU number, and any two that differ, on the user's own files.

    from oracle.doctor import diagnose_files
    report = diagnose_files("hyp.txt", ["ref.txt"], numbers=["26.65", "0.2436"])
    report.layout                  # what makes BLEU silently wrong on these files, each with file:line and effect
    report.readings                # every profile x tokenizer x case, with signatures
    report.numbers[0].explanations # the readings that reproduce 26.65, best first
    report.differences[0].steps    # from one number's reading to the other's, one convention at a time

The result is a `DoctorReport` (`oracle.doctor.model`), the same object `--json` prints. The names are
imported when first used, so `python -m oracle.doctor.model` (which rewrites the committed schema) runs the
module once.
"""

__all__ = ["DoctorReport", "diagnose_files"]


def __getattr__(name: str):
    if name == "diagnose_files":
        from .diagnosis import diagnose_files

        return diagnose_files
    if name == "DoctorReport":
        from .model import DoctorReport

        return DoctorReport
    raise AttributeError(f"module 'oracle.doctor' has no attribute {name!r}")
