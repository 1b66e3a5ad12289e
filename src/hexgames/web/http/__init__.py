"""The HTTP edge: middleware, limits, hosts, identity cookies, language, markdown
and the JSON error shape."""
