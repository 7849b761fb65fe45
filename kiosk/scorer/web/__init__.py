"""The scorer's web surface: the ASGI app, the kiosks' API, the head referee's console, the routes
of printed pages and exports, the update bundle, the hall and team pages."""
