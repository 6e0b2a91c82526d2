// The entry that lists respondeoqa-eval among the Hub's evaluation frameworks: add it to
// EVALUATION_FRAMEWORKS in huggingface.js packages/tasks/src/eval.ts (a pull request to
// huggingface/huggingface.js; docs/hub-benchmark.md says why and what changes once merged).
// Its key and name are `evaluation_framework` of the eval.yaml that `respondeoqa-eval dataset
// build` writes (tests/harness/test_hub_results.py reads this file).
	"respondeoqa-eval": {
		name: "respondeoqa-eval",
		description:
			"respondeoqa-eval is the reference evaluator of RespondeoQA, a Latin-English question-answering benchmark: it scores responses with the paper's protocol (answer extraction, macron-insensitive exact match, partial credit for metrical feet, padded corpus BLEU and chrF).",
		url: "https://huggingface.co/datasets/slanglab/RespondeoQA",
	},
