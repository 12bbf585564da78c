import { afterEach, describe, expect, it, vi } from 'vitest'
import { configureRequest, RequestError } from '../request'
import { mockHttp, ok, unmockHttp } from '../../test/http'
import { deleteOutcome, removeStation, switchStation, uploadStationImage } from './station'

afterEach(() => unmockHttp())

const refused = (msg: string, code = 400) => ({ code, success: false, data: null, msg })

describe('station delete flow', () => {
  it('turns the first refusal into a devices question, with the server message', async () => {
    const notify = vi.fn()
    configureRequest({ notifyError: notify })
    const calls = mockHttp(() => refused('电站下存在2台设备，确认删除将同时删除这些设备'))
    const error = await removeStation('7').catch((e: unknown) => e)
    expect(calls[0].method).toBe('delete')
    expect(calls[0].path).toBe('/station/7')
    expect(calls[0].params.has('confirm')).toBe(false)
    // The console asks instead of toasting an error.
    expect(notify).not.toHaveBeenCalled()
    expect(deleteOutcome(error, false)).toEqual({
      kind: 'confirmDevices',
      message: '电站下存在2台设备，确认删除将同时删除这些设备',
    })
  })

  it('sends confirm=true the second time; a refusal then is a plain failure', async () => {
    const calls = mockHttp(() => refused('boom'))
    const error = await removeStation('7', true).catch((e: unknown) => e)
    expect(calls[0].params.get('confirm')).toBe('true')
    expect(deleteOutcome(error, true)).toEqual({ kind: 'failed', message: 'boom' })
  })

  it('is done without an error, and other refusals (403, 404) never ask about devices', () => {
    expect(deleteOutcome(undefined, false)).toEqual({ kind: 'done' })
    expect(deleteOutcome(new RequestError('forbidden', 403, false), false).kind).toBe('failed')
    expect(deleteOutcome(new RequestError('missing', 404, false), false).kind).toBe('failed')
    expect(deleteOutcome(new Error('network'), false).kind).toBe('failed')
  })
})

describe('station calls', () => {
  it('switchStation answers the server message', async () => {
    const calls = mockHttp(() => ({ ...ok(true), msg: '调试完成后电站变为运行状态' }))
    expect(await switchStation('7')).toBe('调试完成后电站变为运行状态')
    expect(calls[0]).toMatchObject({ method: 'put', path: '/station/switchStation/7' })
  })

  it('uploads an image as multipart `file` to put-file and keeps its attach id', async () => {
    const calls = mockHttp(() =>
      ok({ attachId: 42, link: '/api/x/42.png?sig=s', originalName: 'roof.png', name: 'x' }),
    )
    const file = new File(['png'], 'roof.png', { type: 'image/png' })
    const image = await uploadStationImage(file)
    expect(calls[0].path).toBe('/blade-resource/oss/endpoint/put-file')
    expect((calls[0].body as FormData).get('file')).toBeInstanceOf(File)
    expect(image).toEqual({ attachId: '42', link: '/api/x/42.png?sig=s', originalName: 'roof.png' })
  })
})
