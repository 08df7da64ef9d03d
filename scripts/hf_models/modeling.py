"""Tiny PyTorch models written after Hugging Face transformers' modeling code, for the ONNX
exports of scripts/make_hf_models.py. Each class names the transformers release and file whose
forward it follows; the graph torch.onnx.export traces from it has the ops, masks and cache
handling of that release (the weights are random).

* DecoderLM: transformers v4.49.0 (the release transformers.js 3.8 pins in scripts/requirements.txt)
  src/transformers/models/{llama,qwen2,gemma,phi3}/modeling_*.py with attn_implementation="sdpa":
  - Llama: LlamaRMSNorm (f32 upcast, rsqrt), LlamaRotaryEmbedding.forward (inv_freq @ position_ids,
    cat(freqs, freqs), cos/sin times attention_scaling), rotate_half, repeat_kv (expand + reshape),
    LlamaModel._update_causal_mask / _prepare_4d_causal_attention_mask_with_cache_position (full of
    finfo.min, triu(1), times arange > cache_position, padding folded in through the in-place slice
    assignment), the DynamicCache concatenation on the sequence axis, LlamaMLP (silu(gate) * up).
  - Qwen2: Qwen2Attention's q/k/v projections with bias, tied embeddings.
  - Gemma: GemmaRMSNorm (x * (1 + w) in f32), the embedding times sqrt(hidden) as a tensor of the
    activations' dtype, gelu_pytorch_tanh in GemmaMLP, head_dim independent of hidden/heads, tied
    embeddings.
  - Phi3: Phi3Attention's fused qkv_proj sliced into q, k, v, Phi3MLP's fused gate_up_proj
    chunked in two, and the sliding-window term of Phi3Model's causal mask (Mistral's, which
    modular_phi3.py inherits).
  Attention is transformers' sdpa_attention_forward (integrations/sdpa_attention.py: the mask
  sliced to the key length, scale=head_dim**-0.5) calling torch.nn.functional
  .scaled_dot_product_attention, which torch 1.13 does not have: `sdpa_as_exported` writes the
  ops torch >= 2.1's ONNX exporter emits for it (torch/onnx/symbolic_opset14.py
  scaled_dot_product_attention: Transpose(k), Mul(q, Sqrt(scale)), Mul(k^T, Sqrt(scale)), MatMul,
  Add(mask), Softmax(-1), MatMul).
* LegacyLlamaLM: transformers v4.33.2 (the release transformers.js 2.17 pins) modeling_llama.py,
  eager LlamaAttention: position_ids made inside from past_key_values_length, the rotary cos/sin
  cached tables gathered at position_ids, _make_causal_mask (only when the query has more than one
  token, as traced) plus the expanded padding mask, matmul / sqrt(head_dim), softmax in f32.
* WhisperDecoder: transformers v4.33.2 modeling_whisper.py: WhisperDecoder (learned positions
  sliced at past_key_values_length, pre-LayerNorm layers, eager bart-style WhisperAttention with
  q scaled before bmm over [batch*heads, seq, head_dim], cross-attention reusing the past encoder
  key/value, proj_out tied to embed_tokens).
* BertEncoder: transformers v4.33.2 modeling_bert.py: BertEmbeddings (word + token type +
  absolute position, LayerNorm), BertSelfAttention (eager, / sqrt(head_dim) + extended mask
  (1 - mask) * finfo.min), GELU (erf), post-LayerNorm.
"""
import math

import torch
from torch import nn

F32_MIN = torch.finfo(torch.float32).min


class Config:
    def __init__(self, **kw):
        self.vocab = 128
        self.hidden = 32
        self.heads = 4
        self.kv_heads = 2
        self.head_dim = None
        self.ffn = 64
        self.layers = 2
        self.rms_eps = 1e-6
        self.rope_theta = 10000.0
        self.max_positions = 64
        self.family = "llama"
        self.tie = False
        self.sliding_window = None
        self.__dict__.update(kw)
        if self.head_dim is None:
            self.head_dim = self.hidden // self.heads


def init_(module, generator):
    """Weights large enough that greedy decoding is not a near-tie (HF's 0.02 is too flat for a
    32-wide model): normal / sqrt(fan_in), norm scales near 1 (Gemma's stored as w in 1 + w)."""
    for name, p in module.named_parameters():
        with torch.no_grad():
            if p.dim() == 1:
                gemma_norm = any(isinstance(m, RMSNorm) and m.gemma and m.weight is p for m in module.modules())
                base = 0.0 if name.endswith("bias") or gemma_norm else 1.0
                p.copy_(base + 0.1 * torch.randn(p.shape, generator=generator))
            else:
                p.copy_(torch.randn(p.shape, generator=generator) / math.sqrt(p.shape[-1]))
    if getattr(getattr(module, "cfg", None), "family", None) == "gemma":
        with torch.no_grad():  # Gemma multiplies the embedding by sqrt(hidden): keep the layers' share
            module.embed_tokens.weight.mul_(0.2)


# ---------------------------------------------------------------- transformers 4.49, SDPA form
def sdpa_as_exported(q, k, v, mask, scale):
    """torch >= 2.1's ONNX form of F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)."""
    root = torch.sqrt(torch.tensor(scale, dtype=torch.float32))
    scores = torch.matmul(q * root, k.transpose(-2, -1) * root)
    return torch.matmul(torch.softmax(scores + mask, dim=-1), v)


class RMSNorm(nn.Module):
    def __init__(self, n, eps, gemma):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n) if gemma else torch.ones(n))
        self.eps, self.gemma = eps, gemma

    def forward(self, x):
        if self.gemma:  # GemmaRMSNorm
            out = x.float()
            out = out * torch.rsqrt(out.pow(2).mean(-1, keepdim=True) + self.eps)
            return (out * (1.0 + self.weight.float())).type_as(x)
        dtype = x.dtype  # LlamaRMSNorm
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


class RotaryEmbedding(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, cfg.head_dim, 2, dtype=torch.int64).float() / cfg.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(h, n_rep):
    batch, kv, slen, hd = h.shape
    if n_rep == 1:
        return h
    h = h[:, :, None, :, :].expand(batch, kv, n_rep, slen, hd)
    return h.reshape(batch, kv * n_rep, slen, hd)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        q, kv = cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim
        if cfg.family == "phi3":
            self.qkv_proj = nn.Linear(cfg.hidden, q + 2 * kv, bias=False)
        else:
            bias = cfg.family == "qwen2"
            self.q_proj = nn.Linear(cfg.hidden, q, bias=bias)
            self.k_proj = nn.Linear(cfg.hidden, kv, bias=bias)
            self.v_proj = nn.Linear(cfg.hidden, kv, bias=bias)
        self.o_proj = nn.Linear(q, cfg.hidden, bias=False)
        self.scaling = cfg.head_dim ** -0.5

    def forward(self, x, cos, sin, mask, past):
        cfg = self.cfg
        input_shape = x.shape[:-1]
        hidden_shape = (*input_shape, -1, cfg.head_dim)
        if cfg.family == "phi3":
            qkv = self.qkv_proj(x)
            query_pos = cfg.heads * cfg.head_dim
            q = qkv[..., :query_pos]
            k = qkv[..., query_pos: query_pos + cfg.kv_heads * cfg.head_dim]
            v = qkv[..., query_pos + cfg.kv_heads * cfg.head_dim:]
        else:
            q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        q = q.view(hidden_shape).transpose(1, 2)
        k = k.view(hidden_shape).transpose(1, 2)
        v = v.view(hidden_shape).transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k = torch.cat([past[0], k], dim=-2)  # DynamicCache.update
        v = torch.cat([past[1], v], dim=-2)
        present = (k, v)
        groups = cfg.heads // cfg.kv_heads
        k, v = repeat_kv(k, groups), repeat_kv(v, groups)
        causal_mask = mask[:, :, :, : k.shape[-2]]
        out = sdpa_as_exported(q, k, v, causal_mask, self.scaling)
        out = out.transpose(1, 2).contiguous()
        out = out.reshape(*input_shape, -1).contiguous()
        return self.o_proj(out), present


def gelu_tanh(x):
    return nn.functional.gelu(x, approximate="tanh")


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.family = cfg.family
        if cfg.family == "phi3":
            self.gate_up_proj = nn.Linear(cfg.hidden, 2 * cfg.ffn, bias=False)
        else:
            self.gate_proj = nn.Linear(cfg.hidden, cfg.ffn, bias=False)
            self.up_proj = nn.Linear(cfg.hidden, cfg.ffn, bias=False)
        self.down_proj = nn.Linear(cfg.ffn, cfg.hidden, bias=False)

    def forward(self, x):
        if self.family == "phi3":
            up_states = self.gate_up_proj(x)
            gate, up_states = up_states.chunk(2, dim=-1)
            return self.down_proj(up_states * nn.functional.silu(gate))
        act = gelu_tanh if self.family == "gemma" else nn.functional.silu
        return self.down_proj(act(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        gemma = cfg.family == "gemma"
        self.self_attn = Attention(cfg)
        self.mlp = MLP(cfg)
        self.input_layernorm = RMSNorm(cfg.hidden, cfg.rms_eps, gemma)
        self.post_attention_layernorm = RMSNorm(cfg.hidden, cfg.rms_eps, gemma)

    def forward(self, x, cos, sin, mask, past):
        residual = x
        h, present = self.self_attn(self.input_layernorm(x), cos, sin, mask, past)
        x = residual + h
        residual = x
        x = residual + self.mlp(self.post_attention_layernorm(x))
        return x, present


class DecoderLM(nn.Module):
    """<Family>ForCausalLM of transformers 4.49 as optimum's DecoderModelPatcher traces it."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.hidden)
        self.layers = nn.ModuleList([Layer(cfg) for _ in range(cfg.layers)])
        self.norm = RMSNorm(cfg.hidden, cfg.rms_eps, cfg.family == "gemma")
        self.rotary_emb = RotaryEmbedding(cfg)
        if not cfg.tie:
            self.lm_head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)

    def causal_mask(self, attention_mask, input_tensor, cache_position):
        dtype = input_tensor.dtype
        min_dtype = torch.finfo(dtype).min
        sequence_length = input_tensor.shape[1]
        target_length = attention_mask.shape[-1]
        causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype, dtype=dtype)
        if self.cfg.sliding_window is None:  # LlamaModel._prepare_4d_causal_attention_mask_with_cache_position
            if sequence_length != 1:
                causal_mask = torch.triu(causal_mask, diagonal=1)
            causal_mask *= torch.arange(target_length) > cache_position.reshape(-1, 1)
        else:  # Phi3Model (MistralModel) with config.sliding_window
            diagonal_attend_mask = torch.arange(target_length) > cache_position.reshape(-1, 1)
            sliding_attend_mask = torch.arange(target_length) <= (cache_position.reshape(-1, 1) - self.cfg.sliding_window)
            # bitwise_or_ in transformers; torch 1.13 exports bool bitwise_or only as `|` (both give Or)
            diagonal_attend_mask = diagonal_attend_mask | sliding_attend_mask
            causal_mask *= diagonal_attend_mask
        causal_mask = causal_mask[None, None, :, :].expand(input_tensor.shape[0], 1, -1, -1)
        causal_mask = causal_mask.clone()
        mask_length = attention_mask.shape[-1]
        padding_mask = causal_mask[:, :, :, :mask_length] + attention_mask[:, None, None, :]
        padding_mask = padding_mask == 0
        causal_mask[:, :, :, :mask_length] = causal_mask[:, :, :, :mask_length].masked_fill(padding_mask, min_dtype)
        return causal_mask

    def forward(self, input_ids, attention_mask, position_ids, past_key_values):
        cfg = self.cfg
        h = self.embed_tokens(input_ids)
        if cfg.family == "gemma":
            normalizer = torch.tensor(cfg.hidden ** 0.5, dtype=h.dtype)
            h = h * normalizer
        past_seen_tokens = past_key_values[0][0].shape[-2]
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + h.shape[1])
        mask = self.causal_mask(attention_mask, h, cache_position)
        cos, sin = self.rotary_emb(h, position_ids)
        presents = []
        for layer, past in zip(self.layers, past_key_values):
            h, present = layer(h, cos, sin, mask, past)
            presents.append(present)
        h = self.norm(h)
        weight = self.embed_tokens.weight if cfg.tie else self.lm_head.weight
        logits = nn.functional.linear(h[:, 0:, :], weight)
        return logits, tuple(presents)


# ---------------------------------------------------------------- transformers 4.33, legacy
class LegacyLlamaLM(nn.Module):
    """LlamaForCausalLM of transformers 4.33 (eager attention, no position_ids input)."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.hidden)
        self.layers = nn.ModuleList([Layer(cfg) for _ in range(cfg.layers)])
        self.norm = RMSNorm(cfg.hidden, cfg.rms_eps, False)
        self.lm_head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, cfg.head_dim, 2).float() / cfg.head_dim))
        t = torch.arange(cfg.max_positions, dtype=inv_freq.dtype)
        freqs = torch.einsum("i,j->ij", t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :], persistent=False)
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :], persistent=False)

    def forward(self, input_ids, attention_mask, past_key_values=None):
        cfg = self.cfg
        batch_size, seq_length = input_ids.shape
        past_key_values_length = past_key_values[0][0].shape[2] if past_key_values is not None else 0
        seq_length_with_past = seq_length + past_key_values_length
        position_ids = torch.arange(past_key_values_length, seq_length + past_key_values_length, dtype=torch.long)
        position_ids = position_ids.unsqueeze(0).view(-1, seq_length)
        h = self.embed_tokens(input_ids)
        # LlamaModel._prepare_decoder_attention_mask
        combined = None
        if seq_length > 1:  # _make_causal_mask
            mask = torch.full((seq_length, seq_length), torch.finfo(h.dtype).min)
            mask_cond = torch.arange(mask.size(-1))
            mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
            mask = mask.to(h.dtype)
            if past_key_values_length > 0:
                mask = torch.cat([torch.zeros(seq_length, past_key_values_length, dtype=h.dtype), mask], dim=-1)
            combined = mask[None, None, :, :].expand(batch_size, 1, seq_length, seq_length + past_key_values_length)
        # _expand_mask
        expanded = attention_mask[:, None, None, :].expand(batch_size, 1, seq_length, seq_length_with_past).to(h.dtype)
        inverted = 1.0 - expanded
        expanded = inverted.masked_fill(inverted.to(torch.bool), torch.finfo(h.dtype).min)
        attn_mask = expanded if combined is None else expanded + combined
        presents = []
        for i, layer in enumerate(self.layers):
            past = past_key_values[i] if past_key_values is not None else None
            residual = h
            x = layer.input_layernorm(h)
            a = layer.self_attn
            q = a.q_proj(x).view(batch_size, seq_length, cfg.heads, cfg.head_dim).transpose(1, 2)
            k = a.k_proj(x).view(batch_size, seq_length, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            v = a.v_proj(x).view(batch_size, seq_length, cfg.kv_heads, cfg.head_dim).transpose(1, 2)
            kv_seq_len = k.shape[-2] + (past[0].shape[-2] if past is not None else 0)
            cos = self.cos_cached[:, :, :kv_seq_len, ...].to(dtype=x.dtype)
            sin = self.sin_cached[:, :, :kv_seq_len, ...].to(dtype=x.dtype)
            cos = cos.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
            sin = sin.squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
            q, k = (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)
            if past is not None:
                k = torch.cat([past[0], k], dim=2)
                v = torch.cat([past[1], v], dim=2)
            presents.append((k, v))
            groups = cfg.heads // cfg.kv_heads
            k, v = repeat_kv(k, groups), repeat_kv(v, groups)
            w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(cfg.head_dim)
            w = w + attn_mask
            w = nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
            o = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(batch_size, seq_length, cfg.hidden)
            h = residual + a.o_proj(o)
            residual = h
            h = residual + layer.mlp(layer.post_attention_layernorm(h))
        h = self.norm(h)
        return self.lm_head(h).float(), tuple(presents)


# ---------------------------------------------------------------- Whisper decoder, 4.33
class WhisperAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.scaling = self.hd ** -0.5
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d)
        self.q_proj = nn.Linear(d, d)
        self.out_proj = nn.Linear(d, d)

    def _shape(self, t, seq_len, bsz):
        return t.view(bsz, seq_len, self.heads, self.hd).transpose(1, 2).contiguous()

    def forward(self, h, kv_states=None, past=None, attention_mask=None):
        is_cross = kv_states is not None
        bsz, tgt_len, d = h.size()
        q = self.q_proj(h) * self.scaling
        if is_cross and past is not None:
            k, v = past
        elif is_cross:
            k = self._shape(self.k_proj(kv_states), -1, bsz)
            v = self._shape(self.v_proj(kv_states), -1, bsz)
        elif past is not None:
            k = self._shape(self.k_proj(h), -1, bsz)
            v = self._shape(self.v_proj(h), -1, bsz)
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        else:
            k = self._shape(self.k_proj(h), -1, bsz)
            v = self._shape(self.v_proj(h), -1, bsz)
        present = (k, v)
        proj_shape = (bsz * self.heads, -1, self.hd)
        q = self._shape(q, tgt_len, bsz).view(*proj_shape)
        k = k.reshape(*proj_shape)
        v = v.reshape(*proj_shape)
        src_len = k.size(1)
        w = torch.bmm(q, k.transpose(1, 2))
        if attention_mask is not None:
            w = w.view(bsz, self.heads, tgt_len, src_len) + attention_mask
            w = w.view(bsz * self.heads, tgt_len, src_len)
        w = nn.functional.softmax(w, dim=-1)
        o = torch.bmm(w, v)
        o = o.view(bsz, self.heads, tgt_len, self.hd).transpose(1, 2).reshape(bsz, tgt_len, d)
        return self.out_proj(o), present


class WhisperLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = WhisperAttention(d, heads)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.encoder_attn = WhisperAttention(d, heads)
        self.encoder_attn_layer_norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)
        self.final_layer_norm = nn.LayerNorm(d)


class WhisperDecoder(nn.Module):
    """WhisperForConditionalGeneration's decoder half as optimum exports it (decoder / decoder with past)."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.hidden)
        self.embed_positions = nn.Embedding(cfg.max_positions, cfg.hidden)
        self.layers = nn.ModuleList([WhisperLayer(cfg.hidden, cfg.heads, cfg.ffn) for _ in range(cfg.layers)])
        self.layer_norm = nn.LayerNorm(cfg.hidden)

    def run(self, input_ids, encoder_hidden_states, past_key_values):
        bsz, tgt_len = input_ids.shape
        past_len = past_key_values[0][0].shape[2] if past_key_values is not None else 0
        h = self.embed_tokens(input_ids)
        positions = self.embed_positions.weight[past_len: past_len + input_ids.shape[-1]]
        h = h + positions
        mask = None
        if tgt_len > 1:  # _make_causal_mask (past_key_values_length 0 when traced without past)
            m = torch.full((tgt_len, tgt_len), torch.finfo(h.dtype).min)
            cond = torch.arange(m.size(-1))
            m.masked_fill_(cond < (cond + 1).view(m.size(-1), 1), 0)
            mask = m.to(h.dtype)[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_len)
        presents = []
        for i, layer in enumerate(self.layers):
            past = past_key_values[i] if past_key_values is not None else None
            residual = h
            x = layer.self_attn_layer_norm(h)
            x, self_present = layer.self_attn(x, past=past[:2] if past is not None else None, attention_mask=mask)
            h = residual + x
            residual = h
            x = layer.encoder_attn_layer_norm(h)
            x, cross_present = layer.encoder_attn(x, kv_states=encoder_hidden_states,
                                                  past=past[2:] if past is not None else None)
            h = residual + x
            residual = h
            x = layer.fc2(nn.functional.gelu(layer.fc1(layer.final_layer_norm(h))))
            h = residual + x
            presents.append(self_present + cross_present)
        h = self.layer_norm(h)
        logits = nn.functional.linear(h, self.embed_tokens.weight)
        return logits, tuple(presents)


class WhisperDecoderNoPast(nn.Module):
    def __init__(self, dec):
        super().__init__()
        self.dec = dec

    def forward(self, input_ids, encoder_hidden_states):
        return self.dec.run(input_ids, encoder_hidden_states, None)


class WhisperDecoderWithPast(nn.Module):
    def __init__(self, dec):
        super().__init__()
        self.dec = dec

    def forward(self, input_ids, past_key_values):
        logits, presents = self.dec.run(input_ids, torch.zeros(1), past_key_values)
        # The with-past decoder's outputs leave out the cross-attention cache (it does not change).
        return logits, tuple(p[:2] for p in presents)


# ---------------------------------------------------------------- BERT, 4.33
class BertEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg.hidden
        self.cfg = cfg
        self.word_embeddings = nn.Embedding(cfg.vocab, d)
        self.position_embeddings = nn.Embedding(cfg.max_positions, d)
        self.token_type_embeddings = nn.Embedding(2, d)
        self.embeddings_norm = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(cfg.max_positions).expand((1, -1)), persistent=False)
        self.layers = nn.ModuleList()
        for _ in range(cfg.layers):
            m = nn.Module()
            m.query, m.key, m.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
            m.attn_out, m.attn_norm = nn.Linear(d, d), nn.LayerNorm(d, eps=1e-12)
            m.intermediate, m.output, m.out_norm = nn.Linear(d, cfg.ffn), nn.Linear(cfg.ffn, d), nn.LayerNorm(d, eps=1e-12)
            self.layers.append(m)

    def forward(self, input_ids, attention_mask, token_type_ids):
        cfg = self.cfg
        seq_length = input_ids.size()[1]
        position_ids = self.position_ids[:, 0: seq_length + 0]
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e = e + self.position_embeddings(position_ids)
        h = self.embeddings_norm(e)
        ext = attention_mask[:, None, None, :].to(dtype=h.dtype)
        ext = (1.0 - ext) * torch.finfo(h.dtype).min
        hd = cfg.hidden // cfg.heads

        def split(x):
            return x.view(x.size()[:-1] + (cfg.heads, hd)).permute(0, 2, 1, 3)

        for m in self.layers:
            q, k, v = split(m.query(h)), split(m.key(h)), split(m.value(h))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
            scores = scores + ext
            probs = nn.functional.softmax(scores, dim=-1)
            ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
            ctx = ctx.view(ctx.size()[:-2] + (cfg.hidden,))
            h = m.attn_norm(m.attn_out(ctx) + h)
            h = m.out_norm(m.output(nn.functional.gelu(m.intermediate(h))) + h)
        return h
