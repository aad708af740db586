"""The report site (`bleu-oracle report`): collect the columns, the data files, what each page shows, the pages."""
