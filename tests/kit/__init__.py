"""The test kit: real servers and stand-ins every area's tests share.

- `net`: free ports, waiting for a server to answer, stopping it;
- `space_server`: the real `respondeoqa-space serve` in a subprocess, on a free port;
- `hubstub`: a loopback Hugging Face Hub (the endpoints huggingface_hub's client calls), with
  the Hub's faults on demand (HTTP 5xx, LFS uploads for `*.gz`) and its push-time check of a
  benchmark's `eval.yaml`;
- `hub_eval_spec`: the Hub's rules for `eval.yaml`, read from the specification the tests keep
  (harness/data/hub_eval_yaml_spec.json) and its list of evaluation frameworks;
- `jobstub`: Hugging Face Jobs on loopback (mounted in `hubstub`): a Job's command as a local
  process, the vLLM image stood in for by `transformers serve` or a fake engine; its faults;
- `oidcstub`: a loopback OpenID provider for the Space's Hugging Face login;
- `browser`: Debian's chromium, started the way this machine's closed network needs.
"""
