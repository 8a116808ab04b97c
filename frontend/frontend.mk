# (placeholder: written by the frontend's owner)
