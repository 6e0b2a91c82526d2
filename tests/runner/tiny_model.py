"""A tiny randomly initialised causal LM saved to a folder, for tests and the benchmark.

No download: the tokenizer is a byte-level BPE trained here on a few strings with the
`tokenizers` library, wrapped in PreTrainedTokenizerFast with a chat template; the model is a
2-layer Llama with random weights.
"""

from __future__ import annotations

from pathlib import Path

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
SPECIAL = ["<pad>", "<s>", "</s>", "<|end|>"]

_CORPUS = [
    "You are a Classicist with expert knowledge in Greek and Roman history, language, and culture.",
    "At the end of your response, give your answer as:\nAnswer: answer text",
    "At the end of your response, give the letter of the correct answer as\nAnswer: Letter",
    "At the end of your response, give your answer as a single word like this:\nAnswer: Word",
    "The possible feet are: amphibrac, anapest, choriamb, dactyl, dichoree, great ionic, iambus",
    "Pedes possibiles sunt: pyrrhic, second epitrit, small ionic, spondee, tribrac, trochee",
    "Arma virumque cano, Troiae qui primus ab oris Italiam fato profugus Laviniaque venit",
    "Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae.",
    "Translate into Latin. Give the genitive plural of rex. What is the name of each foot?",
]


def build_tiny_model(folder: Path, *, chat_template: bool = True, seed: int = 0) -> Path:
    """Write a tiny Llama and its tokenizer to `folder` (loadable with from_pretrained)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        additional_special_tokens=["<|end|>"],
    )
    if chat_template:
        fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=fast.pad_token_id,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder
