"""The book's explorers, one module per topic."""
