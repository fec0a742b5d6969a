"""The CLI's command groups; `heedful.cli` assembles them."""
