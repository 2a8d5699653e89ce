"""The one error type the run modes raise for bad input; the CLI prints it in one or two lines."""


class RunModeError(RuntimeError):
    """A run that cannot start or continue: names the key or file at fault."""
