# sbx's trusted zygote (placeholder; see docs/warm.md).
import sys
sys.exit("sbx zygote: not built yet")
