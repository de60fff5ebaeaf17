"""The hook runtime (§5, §6, §8): registry, discovery, lifecycle, lanes, leases, chain, barrier.

=================  ==========================================================  =================
module             what it holds                                               spec
=================  ==========================================================  =================
``registry``       installed plugins, policy state, permission generations      §3, §6
``discovery``      the six candidate rules, read from the registry              §6, H1, H18
``activation``     the plugin lifecycle as one transition table                 §5.1
``lifecycle``      on-demand activation, coalescing, idle reclaim               §5.1, H2
``lanes``          one FIFO per plugin, call chains, re-entrancy refusal        §8, H2, H22
``leases``         capability leases and the bridge's invocation check          §6, §8, H3, H21
``chain``          the serial pre-hook chain: failure policy, merge, breaker    §5.2, H6
``barrier``        the exclusive policy barrier                                 §6, §12, H21
``scheduler``      the deterministic scheduler port: virtual time, interleaving  §8
``hook_runtime``   ``HookRuntime``, which composes the modules above            §5, §6, §8
``ops``            the ``runtime`` protocol family of the reference candidate   docs/protocol.md
=================  ==========================================================  =================
"""
