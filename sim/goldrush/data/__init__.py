"""Gold Rush data files (deck.csv, tokens.csv), shipped as package data."""
