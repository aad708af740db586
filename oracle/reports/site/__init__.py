"""The report site (`bleu-oracle report`), cut by job:

- `collect`: every column (the oracle under each profile, each installed implementation) run through the
  harness's session, and the WMT17 real data;
- `data`: the data files (run.json, implementations.jsonl, each column's results.jsonl) read into typed
  models and rows, and written;
- `view`: what each page shows, computed once from the data (attributes only);
- `svg`: the plots; `formatting`: numbers and escaping for reading;
- `pages` and `templates/`: the pages, rendered through jinja2 templates;
- `build`: observe, write the data, render, publish, in a staging directory.
"""
