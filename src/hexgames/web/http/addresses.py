"""Which address a request comes from: the peer of the connection, or the client a
trusted proxy names (``hexgames serve --trusted-proxy``), and the parsing of those
proxies' addresses and networks. Every per-address limit counts by these."""

from __future__ import annotations

import ipaddress
from typing import Any

from starlette.types import Scope


def client_address(scope: Scope) -> str:
    """The address limits are counted by: the peer of the connection, or the client a
    trusted proxy names (``hexgames serve --trusted-proxy``: uvicorn rewrites
    ``scope["client"]`` only for the proxies it was told to trust)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


def parse_proxies(values: Any) -> list[Any]:
    """``--trusted-proxy`` values (addresses or networks) as networks; ``ValueError``
    names a bad one."""
    networks = []
    for value in values or ():
        try:
            networks.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {str(value)[:60]!r}") from None
    return networks


def is_trusted(host: str | None, networks: list[Any]) -> bool:
    if not host or not networks:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)
