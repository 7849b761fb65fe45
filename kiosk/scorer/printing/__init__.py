"""Pages for paper and other software: the templates, printed pages and their PDFs (laid out in a
child process, one at a time), and the exports."""
