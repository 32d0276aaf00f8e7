"""The subcommands of `fanshot`, one module per group; fanshot.cli registers them in order."""
