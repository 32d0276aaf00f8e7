import pytest

from api.settings import Settings


def test_defaults_when_environment_is_empty():
    assert Settings.from_env({}) == Settings()


def test_one_inference_worker_per_core(monkeypatch):
    import api.settings

    monkeypatch.setattr(api.settings, "available_cores", lambda: 2)
    assert Settings().inference_workers == 2
    monkeypatch.setattr(api.settings, "available_cores", lambda: 8)
    assert Settings().inference_workers == 8


def test_every_setting_reads_from_its_environment_variable(tmp_path):
    settings = Settings.from_env({
        "FANSHOT_MAX_UPLOAD_BYTES": "1000", "FANSHOT_MAX_PIXELS": "2000", "FANSHOT_ANNOTATED_MAX_SIDE": "320",
        "FANSHOT_INFERENCE_WORKERS": "3", "FANSHOT_INFERENCE_QUEUE": "0", "FANSHOT_IMAGE_STORE_SIZE": "5",
        "FANSHOT_MODEL_DIR": str(tmp_path), "FANSHOT_INFERENCE_PROCESSES": "0", "FANSHOT_TOKEN": "s3cret-Tok",
    })
    assert settings == Settings(max_upload_bytes=1000, max_pixels=2000, annotated_max_side=320,
                                inference_workers=3, inference_queue=0, image_store_size=5,
                                model_dir=tmp_path, inference_processes=False, token="s3cret-Tok")


def test_the_token_stays_out_of_the_settings_repr():
    assert "s3cret" not in repr(Settings(token="s3cret"))


@pytest.mark.parametrize("env, message", [
    ({"FANSHOT_MAX_UPLOAD_BYTES": "lots"}, "FANSHOT_MAX_UPLOAD_BYTES must be an integer"),
    ({"FANSHOT_INFERENCE_WORKERS": "0"}, "inference_workers must be at least 1"),
    ({"FANSHOT_INFERENCE_QUEUE": "-1"}, "inference_queue must be 0 or more"),
    ({"FANSHOT_INFERENCE_PROCESSES": "maybe"}, "FANSHOT_INFERENCE_PROCESSES must be 1 or 0"),
    ({"FANSHOT_TOKEN": "two words"}, "FANSHOT_TOKEN must not contain spaces"),
])
def test_bad_values_are_refused_with_the_variable_named(env, message):
    with pytest.raises(ValueError, match=message):
        Settings.from_env(env)


def test_no_proxy_is_trusted_unless_named():
    from api.settings import Settings

    assert Settings.from_env({}).proxy_list() == []
    named = Settings.from_env({"FANSHOT_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8,::1"})
    assert named.proxy_list() == ["127.0.0.1", "10.0.0.0/8", "::1"]


def test_a_trusted_proxy_that_is_not_an_address_is_refused():
    import pytest

    from api.settings import Settings

    with pytest.raises(ValueError, match="FANSHOT_TRUSTED_PROXIES: 'proxy.local' is not an IP address"):
        Settings.from_env({"FANSHOT_TRUSTED_PROXIES": "proxy.local"})
