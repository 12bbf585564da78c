import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import AttachPage from './attach'
import OssPage from './oss'

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/blade-resource/oss/list')
      return page([
        { id: 'o1', category: 2, ossCode: 's3-main', bucketName: 'pv-files', status: 1 },
        { id: 'o2', category: 1, ossCode: 'disk', status: 2 },
      ])
    if (path === '/blade-resource/attach/list')
      return page([
        {
          id: 'a1',
          originalName: 'roof.png',
          extension: 'png',
          attachSize: 2048,
          ossCode: 's3-main',
        },
        { id: 'a2', originalName: 'notes.txt', extension: 'txt', attachSize: 12, ossCode: '' },
      ])
    return ok(true)
  })
  act(() =>
    useSessionStore.getState().setPermission({
      oss_enable: true,
      oss_edit: true,
      attach_delete: true,
      attach_download: true,
    }),
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('resource pages', () => {
  it('object storage: shows which configuration is enabled and enables another', async () => {
    renderInApp(
      <MemoryRouter>
        <OssPage />
      </MemoryRouter>,
    )
    await screen.findByText('s3-main')
    expect(screen.getByText('已启用')).toBeTruthy()
    // Only the configuration not enabled offers "enable".
    const enables = screen.getAllByTestId('crud-row-enable')
    expect(enables).toHaveLength(1)
    fireEvent.click(enables[0])
    fireEvent.click(await screen.findByTestId('crud-confirm-ok'))
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/blade-resource/oss/enable')?.params.get('id')).toBe(
        'o1',
      ),
    )
  })

  it('attachments: sizes, the store of each, and no add button', async () => {
    renderInApp(
      <MemoryRouter>
        <AttachPage />
      </MemoryRouter>,
    )
    await screen.findByText('roof.png')
    expect(screen.getByText('2.0 KB')).toBeTruthy()
    expect(screen.getByText('本地磁盘')).toBeTruthy()
    expect(screen.queryByTestId('crud-add')).toBeNull()
    expect(screen.getAllByTestId('crud-row-download')).toHaveLength(2)
  })
})
