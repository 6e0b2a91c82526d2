"""Publishing the Space: `space bundle` writes a Hub Space repository, `space deploy` uploads it
(`bundle`); `templates/space_app.py` is the Space's app file."""
