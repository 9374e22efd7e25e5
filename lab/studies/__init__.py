"""What is built from many runs: experiment files (``experiment``), sequential tests (``sprt``), fairest values
(``fair``), tuned bots (``tune``), tournaments (``tournament``), option values by restricted play (``options``),
quality trajectories (``quality``) and engine fingerprints for refactors (``fingerprint``)."""
