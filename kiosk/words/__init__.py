"""A result in words for people: hands and penalties in the ruleset's own words (hand), the score
sheet (sheet), a ruleset written out (ruleset), and text that lines up with Chinese (textfmt)."""
