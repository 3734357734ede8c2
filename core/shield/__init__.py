"""The injection shield: retrieved text read as a model reads it, checked for text addressed to
the model rather than to a human reader, and its structure markers made inert."""
