"""Hardware adapters: seat buttons, LEDs and buzzer on GPIO (gpiozero, with an injected pin
factory), the score-slip printer (pyserial), and the pin map checked against the boot config.

Hardware callbacks arrive on gpiozero's threads; they reach the session only through the
`Door`, which the runner's thread drains."""
