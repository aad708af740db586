"""The report site (`bleu-oracle report`), cut by job:

- `collect`: the columns (the oracle under each profile, each installed implementation), what each column's
  run holds, and the WMT17 real data, read; the columns are run by the command (`oracle.commands.report_columns`,
  each a session of the harness), nothing here runs one;
- `data`: the data files (run.json, implementations.jsonl, each column's results.jsonl) read into typed
  models and rows, and written;
- `view`: what each page shows, computed once from the data (attributes only);
- `svg`: the plots; `formatting`: numbers and escaping for reading;
- `pages` and `templates/`: the pages, rendered through jinja2 templates;
- `build`: the command's observations (the columns it ran), the data written, the pages rendered, published, in a
  staging directory.
"""
