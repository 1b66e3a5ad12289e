"""``hexgames train``: self-play training of a policy-value network (the ``train`` extra).

Only this package imports torch (:mod:`.model` and :mod:`.loop`, and only when a run
starts); the product runs the trained net in numpy (:mod:`hexgames.ai.network`).
"""
