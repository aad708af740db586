"""Driver for the libraries that run in their own virtual environment (oracle/adapters/venv_adapters.py).

Run by that environment's Python, standard library and the library only (bleu-oracle is not installed
there): `python venv_bleu.py keras-hub|metrax`, then one JSON line in, one out, the answer echoing the
request's id (null when the line could not be read), as oracle/adapters/bridge.py describes:
  {"id": 1, "segments": [[hypothesis, [reference, ...]], ...], "max_order": N, "smooth": bool,
   "tokenize": "13a"|null}
  -> {"id": 1, "score": repr(float)} | {"id": 1, "error": "Type: message"}
Strings are the segments' tokens joined by single spaces (a text request's raw text for keras-hub's
own 13a tokenizer).
"""

import json
import os
import sys


def keras_hub():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from keras_hub.src.metrics.bleu import Bleu

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    def split_on_spaces(inputs):  # the tokens as sent: joined by single spaces, none holding whitespace
        return tf.strings.split(inputs)

    def score(message):
        tokenizer = None if message.get("tokenize") == "13a" else split_on_spaces
        metric = Bleu(tokenizer=tokenizer, max_order=message["max_order"], smooth=message["smooth"])
        predictions = [hypothesis for hypothesis, _ in message["segments"]]
        references = tf.ragged.constant([references for _, references in message["segments"]])
        metric.update_state(references, tf.constant(predictions))
        return float(metric.result())

    return score


def metrax():
    import metrax as library

    def score(message):
        if message["smooth"]:
            raise ValueError("metrax's BLEU has no smoothing")
        metric = library.BLEU.from_model_output(
            predictions=[hypothesis for hypothesis, _ in message["segments"]],
            references=[references for _, references in message["segments"]],
            max_order=message["max_order"])
        return float(metric.compute())

    return score


def reply(line, score):
    """The answer to one request line: `score`'s value, or the error it raised; with the request's id."""
    ident = None
    try:
        message = json.loads(line)
        if isinstance(message, dict) and isinstance(message.get("id"), int):
            ident = message["id"]
        answer = {"score": repr(score(message))}
    except Exception as exc:  # noqa: BLE001 - every failure of the library is this request's error
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    return {"id": ident, **answer}


def main():
    score = {"keras-hub": keras_hub, "metrax": metrax}[sys.argv[1]]()
    for line in sys.stdin:
        sys.stdout.write(json.dumps(reply(line, score)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
