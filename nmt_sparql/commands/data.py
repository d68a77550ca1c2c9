from omegaconf import DictConfig, OmegaConf


def run(cfg: DictConfig) -> None:
    print(OmegaConf.to_yaml(cfg))
