"""citeline as a service: the HTTP API, API keys, the background indexer and the web page.

``citeline serve`` runs :func:`citeline.server.app.create_app` under uvicorn.
Needs the ``server`` extra (FastAPI, uvicorn, python-multipart).
"""
