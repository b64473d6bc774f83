tests:
