# (placeholder: written by the helper's owner)
