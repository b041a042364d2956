"""Plain, slow reference models that check the engines (STYLE.md: "a plain model beside
the fast one"). They share no code with ``projections/``."""
