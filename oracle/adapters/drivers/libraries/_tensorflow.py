"""The TensorFlow family's one environment (keras_hub.py, tfma.py, tensor2tensor.py, tf_models_official.py): its pinned
pip steps and the import that must run there. Not a library of its own (a leading underscore: the driver lists no
`_` module, the registry reads none).

keras-hub's Bleu needs TensorFlow (tensorflow-cpu 2.21.0 and keras 3.15.1 are wheels on this machine type's disk);
keras-hub itself goes in without its dependencies, since tensorflow-text (a hard requirement that its metrics never
import) would pull the full `tensorflow` distribution beside tensorflow-cpu; its other requirements follow, pinned.
The rest of the family shares this environment (one TensorFlow on disk), each without its declared dependencies, for
the same reason or a worse one: tensorflow-model-analysis and tfx-bsl require the full `tensorflow` (and tfx-bsl a
tensorflow-serving-api that requires TensorFlow < 2.20), apache-beam[gcp] and absl-py < 2 (keras-hub's environment
has 2.5.1; tfma's BLEU imports and runs with it); tf-models-official 2.20 requires tensorflow ~= 2.20 and
tensorflow-text; tensor2tensor 1.15.7 pins tensorflow-probability 0.7, gym, mesh-tensorflow and more that its
bleu_hook never imports. What the BLEU modules import follows, pinned (apache-beam brings protobuf down to 6.33, which
TensorFlow 2.21 accepts). Each member names its own distribution, whose files it verifies (the same directory,
prepared once, kept under keras-hub's name). The family's import takes 15 to 30 s on two busy cores, and was checked
to import in a thread: each member is preloaded."""

from typing import Any, Dict

from . import environment

STEPS = (
    ("tensorflow-cpu==2.21.0", "keras==3.15.1"),
    ("--no-deps", "keras-hub==0.32.0"),
    ("absl-py==2.5.1", "packaging==26.3", "regex==2026.11.19", "rich==15.0.0", "tokenizers==0.23.3",
     "sentencepiece==0.2.3", "kagglehub==1.0.2", "kagglesdk==0.1.28"),
    ("--no-deps", "tensorflow-model-analysis==0.52.0", "tfx-bsl==1.21.0", "tf-models-official==2.20.0",
     "tf-keras==2.21.0", "tensor2tensor==1.15.7"),
    ("apache-beam==2.77.0", "protobuf==6.33.6", "tensorflow-metadata==1.21.0", "sacrebleu==2.6.0",
     "scipy==1.17.1", "rouge-score==0.1.2", "nltk==3.10.4", "pandas==3.1.1", "dill==0.4.1",
     "ipywidgets==8.1.9"),
)
CHECK = ("import os; os.environ['KERAS_BACKEND'] = 'tensorflow'; from keras_hub.src.metrics.bleu import Bleu; "
         "import tensorflow_model_analysis; from tensorflow_model_analysis.metrics.bleu import Bleu; "
         "from official.nlp.metrics import bleu; from tensor2tensor.utils import bleu_hook")


def tensorflow_environment(distribution: str) -> Dict[str, Any]:
    """The family's environment, as the member whose BLEU is in `distribution` declares it."""
    return environment(STEPS, CHECK, distribution, directory="keras-hub")
