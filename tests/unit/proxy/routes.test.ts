import { describe, expect, it } from 'vitest';
import { attributeProvider, matchUnmanagedApi } from '../../../src/proxy/routes.js';

describe('attributeProvider', () => {
  describe('by path', () => {
    it('sends the Anthropic paths to Anthropic, whatever bearer they carry', () => {
      expect(attributeProvider('/v1/messages?beta=true', { authorization: 'Bearer sk-ant-oat01-x' })).toEqual({
        provider: 'anthropic',
      });
      expect(attributeProvider('/v1/messages/count_tokens', { authorization: 'Bearer oauth' })).toEqual({
        provider: 'anthropic',
      });
    });

    it("sends Claude Code's /api/ calls to Anthropic, an OAuth bearer included", () => {
      expect(attributeProvider('/api/oauth/profile', { authorization: 'Bearer sk-ant-oat01-x' })).toEqual({
        provider: 'anthropic',
      });
    });

    it('sends the OpenAI paths to OpenAI', () => {
      expect(attributeProvider('/v1/responses', { authorization: 'Bearer sk-proj-1' })).toEqual({ provider: 'openai' });
      expect(attributeProvider('/v1/chat/completions', {})).toEqual({ provider: 'openai' });
    });

    it('refuses an Anthropic credential on an OpenAI path', () => {
      expect(attributeProvider('/v1/chat/completions', { authorization: 'Bearer sk-ant-api03-x' })).toMatchObject({
        reason: expect.stringContaining('Anthropic credential'),
      });
      expect(attributeProvider('/v1/responses', { 'x-api-key': 'sk-ant-api03-x' }).provider).toBeUndefined();
    });
  });

  describe('by headers, on a path that names no provider', () => {
    it('sends an anthropic-version or x-api-key request to Anthropic', () => {
      expect(
        attributeProvider('/v1/models', { authorization: 'Bearer oauth', 'anthropic-version': '2023-06-01' }),
      ).toEqual({ provider: 'anthropic' });
      expect(attributeProvider('/v1/models', { 'x-api-key': 'sk-ant-1' })).toEqual({ provider: 'anthropic' });
    });

    it('sends a bearer key to OpenAI, and a request without credential to Anthropic', () => {
      expect(attributeProvider('/v1/models', { authorization: 'Bearer sk-proj-1' })).toEqual({ provider: 'openai' });
      expect(attributeProvider('/api/hello', {})).toEqual({ provider: 'anthropic' });
    });

    it('refuses a bearer sk-ant- key without anthropic-version', () => {
      expect(attributeProvider('/v1/models', { authorization: 'Bearer sk-ant-api03-x' })).toMatchObject({
        reason: expect.stringContaining('sk-ant-'),
        shape: 'anthropic',
      });
    });
  });

  describe('Gemini', () => {
    it.each([
      ['a Gemini path', '/v1beta/models/gemini-2.5-pro:generateContent', {}],
      [
        'a Gemini path with its key in the query',
        '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=AIza-1',
        {},
      ],
      ['a Gemini key header on a path that names no provider', '/v1/models', { 'x-goog-api-key': 'AIza-1' }],
      ['a Gemini key in the query of a path that names no provider', '/v1/models?key=AIza-1', {}],
    ])('sends %s to Gemini', (_name, url, headers) => {
      expect(attributeProvider(url, headers)).toEqual({ provider: 'gemini' });
    });

    it('refuses a Gemini key on an Anthropic or OpenAI path, and an Anthropic credential on a Gemini path', () => {
      expect(attributeProvider('/v1/messages', { 'x-goog-api-key': 'AIza-1' })).toMatchObject({
        reason: expect.stringContaining('Gemini credential'),
        shape: 'anthropic',
      });
      expect(attributeProvider('/v1/responses?key=AIza-1', {}).provider).toBeUndefined();
      expect(
        attributeProvider('/v1beta/models/gemini-2.5-pro:generateContent', { 'x-api-key': 'sk-ant-1' }),
      ).toMatchObject({ reason: expect.stringContaining('Anthropic credential on a Gemini path'), shape: 'gemini' });
    });
  });

  describe('providers without a default upstream', () => {
    it.each([
      ['an Azure key header', '/v1/chat/completions', { 'api-key': 'azure-1' }],
      ['an Azure path', '/openai/deployments/gpt/chat/completions?api-version=2024-10-21', {}],
    ])('refuses %s', (_name, url, headers) => {
      expect(attributeProvider(url, headers).provider).toBeUndefined();
    });
  });
});

describe('matchUnmanagedApi', () => {
  it('names the model APIs passed through unmanaged', () => {
    expect(matchUnmanagedApi('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse')).toBeUndefined();
    expect(matchUnmanagedApi('/openai/deployments/gpt/chat/completions')).toBe('azure-openai');
    expect(matchUnmanagedApi('/v1/models')).toBeUndefined();
  });
});
