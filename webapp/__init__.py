"""The web app around the engine and the recognizer: JSON API, pages, game records, photos.

`app.create_app` wires these modules together; each module here has one job.
"""
VERSION = "0.1.0"
