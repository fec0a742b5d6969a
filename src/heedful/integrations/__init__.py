"""Platform adapters: parse a platform's payload, call the execution layer, render its answer."""
