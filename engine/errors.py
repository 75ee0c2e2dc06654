"""The one error the engine raises for bad input; its message is shown to the user as is."""


class HandError(ValueError):
    """Input that is not a valid tile, hand, meld, context or rule table."""
