/** Hooks of the inspection pages: phone layout, button permissions, the delete flow. */
import { App, Grid } from 'antd'
import { useTranslation } from 'react-i18next'
import { useSessionStore } from '../../stores/session'

/** Below this width the pages lay out for a phone (antd's `md` breakpoint). */
export function usePhone(): boolean {
  const screens = Grid.useBreakpoint()
  return screens.md === false
}

/** Button permissions `<menu>_<button>`: code → allowed. */
export function useCan(menu: string) {
  const permission = useSessionStore((s) => s.permission)
  return (button: string) => permission[`${menu}_${button}`] === true
}

/** Delete with a confirm; the server's message (删除成功) is shown, a refusal by the request client. */
export function useDelete(
  remove: (ids: readonly string[]) => Promise<string>,
  after: (ids: readonly string[]) => void,
) {
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  return (ids: readonly string[]) => {
    if (ids.length === 0) {
      void message.warning(t('inspection.message.selectOne'))
      return
    }
    void modal.confirm({
      title: t('inspection.message.deleteConfirm'),
      okButtonProps: { 'data-testid': 'inspection-delete-ok', danger: true },
      onOk: async () => {
        try {
          const msg = await remove(ids)
          void message.success(msg || t('crud.deleted'))
          after(ids)
        } catch {
          // The request client has shown why (删除失败, an item still used...).
        }
      },
    })
  }
}
