// TestSupport layer; see Package.swift for its place in the graph.
