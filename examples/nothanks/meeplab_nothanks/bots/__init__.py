"""No Thanks! bots (entry point ``meeplab.bots``: ``nothanks = "meeplab_nothanks.bots"``)."""
