"""M5: AWS custom silicon as one stock-and-flow model (docstring completed below)."""

from forecast.models.aws_silicon.model import AWS_SILICON_SAMPLER, AwsSiliconModel

__all__ = ["AWS_SILICON_SAMPLER", "AwsSiliconModel"]
