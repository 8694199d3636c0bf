"""Reading user files: bounded text, structured formats, the project file's schema, TREC runs and
qrels. Nothing here searches, ranks or measures."""
